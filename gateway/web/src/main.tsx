/** The console's entry: report browser errors, read the session, render the shell. */
import { render } from 'preact';
import './styles.css';
import { App } from './app';
import { installErrorReporting, reportClientError } from './error-reporting';
import { loadSession } from './session';

installErrorReporting();
const root = document.getElementById('app')!;
render(<App />, root);
loadSession().catch((error: unknown) => {
  reportClientError(error);
  root.textContent = 'Tix could not reach its server. Reload the page to try again.';
});
