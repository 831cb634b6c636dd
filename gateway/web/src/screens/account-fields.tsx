/**
 * The controls of the signed-out screens (sign-in, forgotten password, reset password): the
 * account's email and a password, each required and named for the browser's password manager.
 */
import { Field, type BoundControl } from '../ui/field';

export function EmailField(bound: BoundControl) {
  return <Field label="Email" type="email" autoComplete="username" required {...bound} />;
}

export function PasswordField({
  label,
  autoComplete,
  ...bound
}: BoundControl & { label: string; autoComplete: 'current-password' | 'new-password' }) {
  return <Field label={label} type="password" autoComplete={autoComplete} required {...bound} />;
}
