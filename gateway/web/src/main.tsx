/** The console's entry: report browser errors, read the session, render the shell. */
import { render } from 'preact';
// The sheets in cascade order (at equal specificity the later wins): the base, the shell, the ui
// components, then the screens by area. Each is also imported by the module it styles; this list
// fixes where it lands in the bundle, so that moving an import never reorders the cascade.
import './base.css';
import './app.css';
import './ui/field.css';
import './ui/button.css';
import './ui/empty-state.css';
import './ui/dialog.css';
import './ui/toast.css';
import './screens/ticket/board.css';
import './screens/admin/admin.css';
import './screens/ticket/ticket.css';
import './screens/assistant/ai.css';
import './screens/activity.css';
import './screens/assistant/audit-queue.css';
import './screens/admin/kill-switch.css';
import './screens/admin/guardrails.css';
import './screens/assistant/assistant.css';
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
