/** The page of the mailed link (`/reset-password?token=…`): choose a new password, then sign in. */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { navigate } from '../router';
import { Button } from '../ui/button';
import { FormError } from '../ui/field';
import { useSubmit } from '../ui/submit';
import { PasswordField } from './account-fields';
import type { ScreenProps } from './screen';

export default function ResetPassword({ query }: ScreenProps) {
  const token = query.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const { busy, errors, setErrors, run, field } = useSubmit();

  async function submit(event: Event) {
    event.preventDefault();
    if (password !== confirmation) {
      setErrors({ confirmation: ['The two passwords differ'] });
      return;
    }
    await run(async () => {
      await call(api.POST('/auth/reset-password', { body: { token, new_password: password } }));
      navigate('/sign-in?reset=1', { replace: true });
    });
  }

  const tokenError =
    errors.token?.join(' ') ?? (token ? null : 'This page needs the link from the reset mail.');
  return (
    <section class="screen narrow">
      <h1>Choose a new password</h1>
      <form class="form" onSubmit={(event) => void submit(event)} noValidate>
        <FormError message={tokenError ? `${tokenError} You can ask for a new link below.` : null} />
        <PasswordField
          label="New password"
          autoComplete="new-password"
          {...field('new_password', password, setPassword)}
        />
        <PasswordField
          label="New password again"
          autoComplete="new-password"
          {...field('confirmation', confirmation, setConfirmation)}
        />
        <Button kind="primary" type="submit" busy={busy} disabled={!token}>
          Set the password
        </Button>
      </form>
      <p>
        <a href="/forgot-password">Ask for a new link</a>
      </p>
    </section>
  );
}
