/**
 * What a message's Go JSON tags say that its protobuf descriptor does not: which value scalars
 * lack `omitempty` (Go prints their zero) and which embedded structs are `json:",inline"`.
 *
 * Source: the OpenAPI of the same types as @kubernetes/client-node's generated models carry it.
 * openapi-gen makes a property `required` when its json tag has no `omitempty` (a model property
 * without `?`), and an inlined struct's properties appear in the parent's model in its place.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type FieldDescriptor, type Message, TYPE_MESSAGE } from './descriptors.ts';

const require = createRequire(import.meta.url);
const MODELS = join(dirname(require.resolve('@kubernetes/client-node')), 'gen', 'models');

export interface JsonTags {
  /** JSON names whose zero Go still prints (no `omitempty`); undefined when no model matched. */
  required?: Set<string>;
  /** Fields (protobuf names) of embedded structs inlined into this message's JSON. */
  inline: Set<string>;
}

/**
 * Value fields whose tag has no `omitempty` although OpenAPI calls them optional (`+optional`),
 * so the models miss them: k8s.io/api core/v1 types.go, Event.ReportingController and
 * ReportingInstance (`json:"reportingComponent"`, `json:"reportingInstance"`).
 */
const NOT_OMITEMPTY: Record<string, string[]> = {
  'k8s.io.api.core.v1.Event': ['reportingComponent', 'reportingInstance'],
};

interface Model {
  declared: Set<string>;
  required: Set<string>;
}

/**
 * Maybe an embedded Go struct: a value field whose Go name is its type's (`LocalObjectReference`,
 * `VolumeSource`, `ProbeHandler`). ObjectMeta is embedded too but named `metadata`, and a field
 * can merely share its type's name (WeightedPodAffinityTerm.podAffinityTerm): jsonTags() only
 * inlines it when the model has no property of the field's own name.
 */
function embedded(field: FieldDescriptor): boolean {
  return (
    field.type === TYPE_MESSAGE &&
    field.options?.gogoNullable === false &&
    field.name !== 'metadata' &&
    field.options.gogoCustomName === field.typeName?.split('.').pop()
  );
}

function readModel(name: string): Model | undefined {
  let text: string;
  try {
    text = readFileSync(join(MODELS, `${name}.d.ts`), 'utf8');
  } catch {
    return undefined;
  }
  const model: Model = { declared: new Set(), required: new Set() };
  for (const m of text.matchAll(/^ {4}'(\w+)'(\?)?:/gm)) {
    model.declared.add(m[1]!);
    if (!m[2]) model.required.add(m[1]!);
  }
  return model;
}

/** JSON names a message can have: its fields, plus those of structs it may inline. */
function candidateNames(index: Map<string, Message>, message: Message): Set<string> {
  const names = new Set<string>();
  for (const field of message.descriptor.field ?? []) {
    names.add(field.name);
    const inner = embedded(field) ? index.get(field.typeName!.slice(1)) : undefined;
    if (inner) for (const name of candidateNames(index, inner)) names.add(name);
  }
  return names;
}

/** The client-node model of a message: `CoreV1Event` before `V1Event`, and only if it fits. */
function modelOf(index: Map<string, Message>, message: Message): Model | undefined {
  const pkg = message.file.package;
  if (!pkg.startsWith('k8s.io.api.') && !pkg.endsWith('.meta.v1')) return undefined;
  const group = /^k8s\.io\.api\.(\w+)\.v1$/.exec(pkg)?.[1];
  const prefixes = group ? [`${group[0]!.toUpperCase()}${group.slice(1)}V1`, 'V1'] : ['V1'];
  const names = candidateNames(index, message);
  for (const prefix of prefixes) {
    const model = readModel(`${prefix}${message.descriptor.name}`);
    if (!model) continue;
    // A kind's TypeMeta (apiVersion, kind) is no field of its message.
    for (const typeMeta of ['apiVersion', 'kind']) {
      if (!names.has(typeMeta)) model.declared.delete(typeMeta) && model.required.delete(typeMeta);
    }
    // Same-named types exist in other groups; the model may also be newer than kubectl's
    // (client-node 1.4 models Kubernetes 1.34) and declare a few more fields.
    const known = [...model.declared].filter((name) => names.has(name)).length;
    if ([...model.required].every((n) => names.has(n)) && known * 2 >= model.declared.size) return model;
  }
  return undefined;
}

export function jsonTags(index: Map<string, Message>, keep: Set<string>): Map<string, JsonTags> {
  const tags = new Map<string, JsonTags>();
  for (const name of keep) {
    const message = index.get(name)!;
    const model = modelOf(index, message);
    for (const field of NOT_OMITEMPTY[name] ?? []) model?.required.add(field);
    const inline = new Set(
      (message.descriptor.field ?? [])
        .filter((f) => embedded(f) && !model?.declared.has(f.name))
        .map((f) => f.name),
    );
    tags.set(name, { ...(model ? { required: model.required } : {}), inline });
  }
  // An inlined struct rarely has a model of its own (VolumeSource, ProbeHandler): its
  // properties are its parent's, and so is what the parent's model requires of them.
  for (const name of keep) {
    const message = index.get(name)!;
    for (const field of message.descriptor.field ?? []) {
      if (!tags.get(name)!.inline.has(field.name)) continue;
      const child = tags.get(field.typeName!.slice(1))!;
      const parentRequired = tags.get(name)!.required;
      if (!child.required && parentRequired) child.required = parentRequired;
    }
  }
  return tags;
}
