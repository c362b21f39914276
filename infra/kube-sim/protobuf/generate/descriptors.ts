/**
 * The FileDescriptorProtos that gogo-protobuf compiles into a Go binary (generated.pb.go
 * registers each `generated.proto` as a gzipped descriptor), read back from the kubectl binary.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

const require = createRequire(import.meta.url);

export interface FieldDescriptor {
  name: string;
  number: number;
  label: number;
  type: number;
  typeName?: string;
  /** gogoproto.nullable (false: a Go value, not a pointer) and gogoproto.customname (the Go name). */
  options?: { gogoNullable?: boolean; gogoCustomName?: string };
}

export interface MessageDescriptor {
  name: string;
  field?: FieldDescriptor[];
  nestedType?: MessageDescriptor[];
  options?: { mapEntry?: boolean };
}

export interface FileDescriptor {
  name: string;
  package: string;
  dependency?: string[];
  messageType?: MessageDescriptor[];
}

export interface Message {
  file: FileDescriptor;
  descriptor: MessageDescriptor;
  /** `k8s.io.api.core.v1.Secret` */
  fullName: string;
}

export const LABEL_REPEATED = 3;
export const TYPE_MESSAGE = 11;

/** descriptor.proto, with gogoproto's `nullable` and `customname` (FieldOptions 65001, 65004) readable. */
function fileDescriptorType(): protobuf.Type {
  const path = require.resolve('protobufjs/google/protobuf/descriptor.json');
  const root = protobuf.Root.fromJSON(JSON.parse(readFileSync(path, 'utf8')) as protobuf.INamespace);
  const options = root.lookupType('google.protobuf.FieldOptions');
  options.add(new protobuf.Field('gogoNullable', 65001, 'bool'));
  options.add(new protobuf.Field('gogoCustomName', 65004, 'string'));
  return root.lookupType('google.protobuf.FileDescriptorProto');
}

/** Every gzipped FileDescriptorProto of a `k8s.io/…` .proto file embedded in the binary. */
export function embeddedDescriptors(binary: Buffer): FileDescriptor[] {
  const type = fileDescriptorType();
  const gzipHeader = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0]);
  const files: FileDescriptor[] = [];
  for (let at = binary.indexOf(gzipHeader); at >= 0; at = binary.indexOf(gzipHeader, at + 1)) {
    let bytes: Buffer;
    try {
      // Stops at the end of the gzip member; 4 MiB is far more than the largest descriptor.
      bytes = gunzipSync(binary.subarray(at, at + 4 * 1024 * 1024), { finishFlush: 2 });
    } catch {
      continue;
    }
    if (!bytes.subarray(0, 120).toString('latin1').includes('k8s.io/')) continue;
    try {
      const file = type.toObject(type.decode(bytes), { longs: Number }) as FileDescriptor;
      if (file.name?.startsWith('k8s.io/') && file.name.endsWith('.proto')) files.push(file);
    } catch {
      // Compressed data that is not a descriptor.
    }
  }
  return files;
}

export function indexMessages(files: FileDescriptor[]): Map<string, Message> {
  const index = new Map<string, Message>();
  for (const file of files) {
    for (const descriptor of file.messageType ?? []) {
      const fullName = `${file.package}.${descriptor.name}`;
      index.set(fullName, { file, descriptor, fullName });
    }
  }
  return index;
}

/** The nested `XEntry` message protoc makes for a `map<…>` field. */
export function mapEntry(message: Message, field: FieldDescriptor): MessageDescriptor | undefined {
  const nestedName = field.typeName?.split('.').pop();
  return message.descriptor.nestedType?.find((n) => n.name === nestedName && n.options?.mapEntry);
}

/** The message a field holds (a map's value type for maps), if it holds one. */
export function fieldMessage(message: Message, field: FieldDescriptor): string | undefined {
  if (field.type !== TYPE_MESSAGE || !field.typeName) return undefined;
  const entry = mapEntry(message, field);
  const target = entry ? entry.field?.find((f) => f.name === 'value') : field;
  return target?.type === TYPE_MESSAGE ? target.typeName?.slice(1) : undefined;
}

/** Names of the messages reachable from the roots. */
export function reachable(index: Map<string, Message>, roots: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    const message = index.get(name);
    if (!message) throw new Error(`message ${name} is not in the kubectl binary's descriptors`);
    seen.add(name);
    for (const field of message.descriptor.field ?? []) {
      const inner = fieldMessage(message, field);
      if (inner) visit(inner);
    }
  };
  for (const root of roots) visit(root);
  return seen;
}
