/** Sign-in: email and password; back to the wanted route (`?next=`) afterwards. */
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import { navigate } from '../router';
import { signIn } from '../session';
import { Button } from '../ui/button';
import { FormError } from '../ui/field';
import { useSubmit } from '../ui/submit';
import { EmailField, PasswordField } from './account-fields';
import type { ScreenProps } from './screen';

/** Only a path of this console (never another origin) is followed after sign-in. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/sign-')
    ? next
    : '/board';
}

export default function SignIn({ query }: ScreenProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, run, field } = useSubmit();
  const [formError, setFormError] = useState<string | null>(null);
  const reset = query.get('reset') === '1';

  async function submit(event: Event) {
    event.preventDefault();
    setFormError(null);
    await run(
      async () => {
        await signIn(email, password);
        navigate(safeNext(query.get('next')), { replace: true });
      },
      (error) =>
        setFormError(error instanceof ApiError || error instanceof Error ? error.message : String(error)),
    );
  }

  return (
    <section class="screen narrow">
      <h1>Sign in to Tix</h1>
      {reset && (
        <p class="notice" role="status">
          Your password has been reset. Sign in with your new password.
        </p>
      )}
      <form class="form" onSubmit={(event) => void submit(event)} noValidate>
        <FormError message={formError} />
        <EmailField {...field('email', email, setEmail)} />
        <PasswordField
          label="Password"
          autoComplete="current-password"
          {...field('password', password, setPassword)}
        />
        <Button kind="primary" type="submit" busy={busy}>
          Sign in
        </Button>
      </form>
      <p>
        <a href="/forgot-password">Forgotten your password?</a>
      </p>
    </section>
  );
}
