/** Asks for a reset link by email (the answer is the same whether or not the address has an account). */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { Button } from '../ui/button';
import { useSubmit } from '../ui/submit';
import { EmailField } from './account-fields';

export default function ForgotPassword() {
  const [email, setEmail] = useState('');
  const { busy, run, field } = useSubmit();
  const [sent, setSent] = useState<string | null>(null);

  async function submit(event: Event) {
    event.preventDefault();
    await run(async () => {
      const answer = await call(api.POST('/auth/forgot-password', { body: { email } }));
      setSent(answer.message);
    });
  }

  return (
    <section class="screen narrow">
      <h1>Forgotten password</h1>
      {sent ? (
        <p class="notice" role="status">
          {sent}.
        </p>
      ) : (
        <form class="form" onSubmit={(event) => void submit(event)} noValidate>
          <p>Enter the address of your account; we will mail you a link to choose a new password.</p>
          <EmailField {...field('email', email, setEmail)} />
          <Button kind="primary" type="submit" busy={busy}>
            Send the link
          </Button>
        </form>
      )}
      <p>
        <a href="/sign-in">Back to sign-in</a>
      </p>
    </section>
  );
}
