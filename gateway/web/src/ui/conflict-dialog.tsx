/**
 * The 409 conflict hook: when a write under `version` was refused because someone changed the record
 * first, the screen re-fetches it and asks
 *   `const choice = await askConflict({ title, rows: [{ label, mine, theirs }] })`
 * The dialog shows both versions side by side; 'reapply' means: apply my changes on top of theirs
 * (the screen retries with the new `version`), 'discard' keeps theirs. <ConflictHost/> is mounted
 * once by the shell.
 */
import { signal } from '@preact/signals';
import { Button } from './button';
import { Dialog } from './dialog';
import './dialog.css';
import { ColumnHeads } from './table';

export interface ConflictRow {
  label: string;
  mine: string;
  theirs: string;
}

export interface ConflictQuestion {
  title: string;
  /** Who changed it and when, when known ("Changed by Ada at 10:42"). */
  detail?: string;
  rows: ConflictRow[];
}

export type ConflictChoice = 'reapply' | 'discard';

const pending = signal<{ question: ConflictQuestion; answer: (choice: ConflictChoice) => void } | null>(null);

export function askConflict(question: ConflictQuestion): Promise<ConflictChoice> {
  return new Promise((resolve) => {
    pending.value?.answer('discard');
    pending.value = { question, answer: resolve };
  });
}

function answer(choice: ConflictChoice): void {
  const current = pending.value;
  pending.value = null;
  current?.answer(choice);
}

export function ConflictHost() {
  const current = pending.value;
  return (
    <Dialog open={current !== null} title={current?.question.title ?? ''} onClose={() => answer('discard')}>
      {current && (
        <>
          <p>
            Someone changed this while you were editing.
            {current.question.detail ? ` ${current.question.detail}` : ''}
          </p>
          <table class="conflict-table">
            <ColumnHeads columns={['Field', 'Yours', 'Theirs (saved)']} />
            <tbody>
              {current.question.rows.map((row) => (
                <tr key={row.label}>
                  <th scope="row">{row.label}</th>
                  <td>{row.mine}</td>
                  <td>{row.theirs}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="dialog-actions">
            <Button kind="primary" onClick={() => answer('reapply')}>
              Apply mine on top
            </Button>
            <Button onClick={() => answer('discard')}>Keep theirs</Button>
          </div>
        </>
      )}
    </Dialog>
  );
}
