/** Signs out on arrival, then offers to sign in again. */
import { useEffect, useState } from 'preact/hooks';
import { showError } from '../api/client';
import { currentUser, signOut } from '../session';
import { Loading } from '../ui/empty-state';

export default function SignOut() {
  const [done, setDone] = useState(currentUser.value === null);
  useEffect(() => {
    if (currentUser.value === null) return;
    signOut()
      .catch(showError)
      .finally(() => setDone(true));
  }, []);
  if (!done) return <Loading what="sign-out" />;
  return (
    <section class="screen narrow">
      <h1>Signed out</h1>
      <p>You have signed out of Tix.</p>
      <p>
        <a href="/sign-in">Sign in again</a>
      </p>
    </section>
  );
}
