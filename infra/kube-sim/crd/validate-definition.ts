/**
 * Validation of CustomResourceDefinitions on create and update, the main rules of
 * apiextensions-apiserver's pkg/apis/apiextensions/validation/validation.go
 * (ValidateCustomResourceDefinition, ValidateCustomResourceDefinitionSpec, …Names, …Versions)
 * with their messages: metadata.name must be `<plural>.<group>`, group a domain with a dot,
 * names DNS-1035 labels, scope Cluster or Namespaced, at least one version, exactly one storage
 * version, unique version names, a structural schema for every version (required in v1), and
 * group, scope and names.plural immutable.
 */
import type { FieldError } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import { invalid, invalidEach, required } from '../validation/field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation/metadata.ts';
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain } from '../validation/names.ts';
import { asCrd, type CrdNames, type CrdSpec } from './definition.ts';
import { validateStructural } from './structural.ts';

export function validateCrdCreate(value: unknown): FieldError[] {
  const object = value as KubeObject;
  const crd = asCrd(object);
  const errs = validateObjectMeta(object, { namespaced: false, nameFn: nameIsDNSSubdomain });
  const spec = crd.spec;
  const expected = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  if (object.metadata.name && object.metadata.name !== expected)
    errs.push(invalid('metadata.name', object.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  errs.push(...validateSpec(spec));
  return errs;
}

export function validateCrdUpdate(value: unknown, oldValue: unknown): FieldError[] {
  const object = value as KubeObject;
  const old = oldValue as KubeObject;
  const errs = [...validateCrdCreate(object), ...validateObjectMetaUpdate(object, old)];
  const spec = asCrd(object).spec;
  const oldSpec = asCrd(old).spec;
  // ValidateCustomResourceDefinitionUpdate: these are fixed once established.
  if (spec.scope !== oldSpec.scope) errs.push(invalid('spec.scope', spec.scope, 'field is immutable'));
  if (spec.group !== oldSpec.group) errs.push(invalid('spec.group', spec.group, 'field is immutable'));
  if (spec.names?.plural !== oldSpec.names?.plural)
    errs.push(invalid('spec.names.plural', spec.names?.plural, 'field is immutable'));
  return errs;
}

function validateSpec(spec: CrdSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (!spec.group) errs.push(required('spec.group', ''));
  else {
    errs.push(...invalidEach('spec.group', spec.group, isDNS1123Subdomain(spec.group)));
    if (spec.group.split('.').length < 2)
      errs.push(invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  if (!spec.scope) errs.push(required('spec.scope', ''));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced')
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'spec.scope',
      value: spec.scope,
      detail: 'supported values: "Cluster", "Namespaced"',
    });
  errs.push(...validateNames(spec.names ?? {}, 'spec.names'));
  if (
    spec.conversion?.strategy &&
    spec.conversion.strategy !== 'None' &&
    spec.conversion.strategy !== 'Webhook'
  )
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'spec.conversion.strategy',
      value: spec.conversion.strategy,
      detail: 'supported values: "None", "Webhook"',
    });
  if (spec.preserveUnknownFields === true)
    errs.push(
      invalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  errs.push(...validateVersions(spec));
  return errs;
}

function validateNames(names: CrdNames, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: keyof CrdNames, value: string | undefined, needed: boolean) => {
    if (!value) {
      if (needed) errs.push(required(`${path}.${field}`, ''));
      return;
    }
    errs.push(...invalidEach(`${path}.${field}`, value, isDNS1035Label(value)));
  };
  label('plural', names.plural, true);
  label('singular', names.singular, true);
  for (const field of ['kind', 'listKind'] as const) {
    const value = names[field];
    if (!value) errs.push(required(`${path}.${field}`, ''));
    else {
      // Upstream lowercases kinds before the DNS-1035 check and words its message so.
      const problems = isDNS1035Label(value.toLowerCase());
      if (problems.length > 0)
        errs.push(
          invalid(
            `${path}.${field}`,
            value,
            `may have mixed case, but should otherwise match: ${problems.join(',')}`,
          ),
        );
    }
  }
  if (names.kind && names.kind === names.listKind)
    errs.push(invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  for (const [i, short] of (names.shortNames ?? []).entries())
    errs.push(...invalidEach(`${path}.shortNames[${i}]`, short, isDNS1035Label(short)));
  return errs;
}

function validateVersions(spec: CrdSpec): FieldError[] {
  const errs: FieldError[] = [];
  const versions = spec.versions ?? [];
  if (versions.length === 0) {
    errs.push(invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
    return errs;
  }
  const storage = versions.filter((v) => v.storage === true).length;
  if (storage !== 1)
    errs.push(invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  if (!versions.some((v) => v.served === true))
    errs.push(invalid('spec.versions', versions, 'must have at least one version marked as served'));
  const seen = new Set<string>();
  for (const [i, version] of versions.entries()) {
    const path = `spec.versions[${i}]`;
    if (!version.name) errs.push(required(`${path}.name`, ''));
    else {
      errs.push(...invalidEach(`${path}.name`, version.name, isDNS1035Label(version.name)));
      if (seen.has(version.name))
        errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, value: version.name });
      seen.add(version.name);
    }
    const schema = version.schema?.openAPIV3Schema;
    if (!schema) errs.push(required(`${path}.schema.openAPIV3Schema`, 'schemas are required'));
    else errs.push(...validateStructural(schema, `${path}.schema.openAPIV3Schema`));
    const scale = version.subresources?.scale;
    if (scale) {
      if (!scale.specReplicasPath) errs.push(required(`${path}.subresources.scale.specReplicasPath`, ''));
      else if (!scale.specReplicasPath.startsWith('.spec.'))
        errs.push(
          invalid(
            `${path}.subresources.scale.specReplicasPath`,
            scale.specReplicasPath,
            'should be a json path under .spec',
          ),
        );
      if (!scale.statusReplicasPath) errs.push(required(`${path}.subresources.scale.statusReplicasPath`, ''));
      else if (!scale.statusReplicasPath.startsWith('.status.'))
        errs.push(
          invalid(
            `${path}.subresources.scale.statusReplicasPath`,
            scale.statusReplicasPath,
            'should be a json path under .status',
          ),
        );
    }
  }
  return errs;
}
