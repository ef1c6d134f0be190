import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { TextField } from './Field';

interface DialogProps {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
  /** Buttons at the bottom; the dialog always has a way out (Escape, the close button). */
  actions?: ReactNode;
}

/**
 * A modal on the native <dialog>: the browser traps focus, Escape closes it, and focus returns to
 * what opened it.
 */
export function Dialog({ title, open, onClose, children, actions }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose} className="dialog">
      {open && (
        <>
          <div className="dialog-head">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="link-button" onClick={onClose} aria-label="Close">
              ×
            </button>
          </div>
          <div className="dialog-body">{children}</div>
          {actions && <div className="dialog-actions">{actions}</div>}
        </>
      )}
    </dialog>
  );
}

interface ConfirmProps {
  title: string;
  open: boolean;
  onCancel: () => void;
  onConfirm: () => void | Promise<void>;
  confirmLabel: string;
  children: ReactNode;
  /** When set, the action stays disabled until this exact text is typed. */
  typeToConfirm?: string;
  danger?: boolean;
  busy?: boolean;
}

/** A confirmation, optionally one that asks to type a name first (deletions). */
export function ConfirmDialog(p: ConfirmProps) {
  return (
    <Dialog title={p.title} open={p.open} onClose={p.onCancel}>
      {/* Mounted while open only: what was typed is gone when it opens again. */}
      <Confirm {...p} />
    </Dialog>
  );
}

function Confirm(p: ConfirmProps) {
  const [typed, setTyped] = useState('');
  const blocked = p.typeToConfirm !== undefined && typed !== p.typeToConfirm;
  return (
    <>
      {p.children}
      {p.typeToConfirm !== undefined && (
        <TextField
          label={
            <>
              Type <code>{p.typeToConfirm}</code> to confirm
            </>
          }
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
          spellCheck={false}
        />
      )}
      <div className="dialog-actions">
        <button type="button" onClick={p.onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className={p.danger ? 'danger' : 'primary'}
          disabled={blocked || p.busy}
          onClick={() => void p.onConfirm()}
        >
          {p.busy ? 'Working…' : p.confirmLabel}
        </button>
      </div>
    </>
  );
}
