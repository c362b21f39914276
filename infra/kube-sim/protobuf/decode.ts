// SCAFFOLD: replaced by the protobuf decoder being written now.
import { statusErrors } from '../errors.ts';

export function decodeProtobuf(_raw: Buffer): never {
  throw statusErrors.unsupportedMediaType('application/vnd.kubernetes.protobuf', [
    'application/json',
    'application/yaml',
  ]);
}
