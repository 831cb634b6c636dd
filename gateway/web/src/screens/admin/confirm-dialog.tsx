/** Asks before a destructive action (revoke, delete, remove): the action runs only on its button. */
import type { ComponentChildren } from 'preact';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onClose: () => void;
  children?: ComponentChildren;
}

export function ConfirmDialog({
  open,
  title,
  confirmLabel,
  busy,
  onConfirm,
  onClose,
  children,
}: ConfirmDialogProps) {
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      {children}
      <div class="dialog-actions">
        <Button kind="danger" busy={busy ?? false} onClick={onConfirm}>
          {confirmLabel}
        </Button>
        <Button kind="quiet" onClick={onClose}>
          Cancel
        </Button>
      </div>
    </Dialog>
  );
}
