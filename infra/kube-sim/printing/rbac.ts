/**
 * Printers of the RBAC kinds, after kubernetes/kubernetes pkg/printers/internalversion/printers.go:
 * Role and ClusterRole (`Created At` as an RFC 3339 date), RoleBinding and ClusterRoleBinding
 * (ROLE as `Kind/name`, wide: the users, groups and service accounts bound).
 */
import { rfc3339, since } from './age.ts';
import { list, str } from './format.ts';
import { AGE_COLUMN, column, NAME_COLUMN, type Obj, type Printer } from './table.ts';

const name = (o: Obj) => str(o.metadata?.name);

export const rolePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column(
      'Created At',
      'date',
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
    ),
  ],
  cells: (role) => [name(role), rfc3339(role.metadata?.creationTimestamp)],
};

/** Subjects by kind, as SubjectsStrings: users, groups, then service accounts as `ns/name`. */
function subjects(binding: Obj): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of list(binding.subjects)) {
    if (s.kind === 'User') users.push(str(s.name));
    else if (s.kind === 'Group') groups.push(str(s.name));
    else if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

export const roleBindingPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column(
      'Role',
      'string',
      'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
    ),
    AGE_COLUMN,
    column('Users', 'string', 'Users in the roleBinding', { wide: true }),
    column('Groups', 'string', 'Groups in the roleBinding', { wide: true }),
    column('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', { wide: true }),
  ],
  cells: (b, now) => [
    name(b),
    `${str(b.roleRef?.kind)}/${str(b.roleRef?.name)}`,
    since(b.metadata?.creationTimestamp, now),
    ...subjects(b),
  ],
};
