import { useId, useRef, useState } from 'react';

/**
 * A value shown once (a new key): read-only, selectable, with a copy button. Without the
 * clipboard API (plain http on another host) the value is selected for Ctrl+C instead.
 */
export function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setStatus('Copied');
    } catch {
      input.current?.select();
      setStatus('Selected: press Ctrl+C to copy');
    }
  };
  return (
    <div className="field copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="row">
        <input
          id={id}
          ref={input}
          value={value}
          readOnly
          spellCheck={false}
          className="mono"
          onFocus={(e) => e.target.select()}
        />
        <button type="button" onClick={() => void copy()} aria-label={`Copy ${label}`}>
          Copy
        </button>
      </div>
      <p className="status" role="status">
        {status}
      </p>
    </div>
  );
}
