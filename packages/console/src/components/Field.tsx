import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

interface FieldProps {
  label: ReactNode;
  /** Help under the control (replaced by `error` when there is one). */
  hint?: ReactNode;
  /** What is wrong with the value: marks the control invalid and is read with it. */
  error?: string | undefined;
  /** The compact variant of toolbars and rows (small label, no bottom margin). */
  inline?: boolean;
  /** Extra classes of the wrapper (`grow`). */
  className?: string;
}

interface ControlIds {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
}

/** A label, the control it names, and the hint or error the control is described by. */
function Frame(p: FieldProps & { control: (ids: ControlIds) => ReactNode }) {
  const id = useId();
  const note = p.error ?? p.hint;
  const noteId = `${id}-note`;
  const ids: ControlIds = { id };
  if (note !== undefined && note !== '') ids['aria-describedby'] = noteId;
  if (p.error) ids['aria-invalid'] = true;
  const classes = ['field', p.inline ? 'inline' : '', p.className ?? ''].filter(Boolean).join(' ');
  return (
    <div className={classes}>
      <label htmlFor={id}>{p.label}</label>
      {p.control(ids)}
      {note !== undefined && note !== '' && (
        <p className={p.error ? 'field-error' : 'help'} id={noteId}>
          {note}
        </p>
      )}
    </div>
  );
}

type Without<T> = Omit<T, 'id' | 'className'>;

/** A labelled input (text, email, password, number, search…). */
export function TextField({
  label,
  hint,
  error,
  inline,
  className,
  ...input
}: FieldProps & Without<InputHTMLAttributes<HTMLInputElement>>) {
  return (
    <Frame
      label={label}
      hint={hint}
      error={error}
      inline={inline}
      className={className}
      control={(ids) => <input {...input} {...ids} />}
    />
  );
}

/** A labelled textarea. */
export function TextAreaField({
  label,
  hint,
  error,
  inline,
  className,
  ...area
}: FieldProps & Without<TextareaHTMLAttributes<HTMLTextAreaElement>>) {
  return (
    <Frame
      label={label}
      hint={hint}
      error={error}
      inline={inline}
      className={className}
      control={(ids) => <textarea {...area} {...ids} />}
    />
  );
}

/** A labelled select; `options` as [value, label] pairs, or its own <option> children. */
export function SelectField({
  label,
  hint,
  error,
  inline,
  className,
  options,
  children,
  ...select
}: FieldProps &
  Without<SelectHTMLAttributes<HTMLSelectElement>> & {
    options?: ReadonlyArray<readonly [string, string]>;
  }) {
  return (
    <Frame
      label={label}
      hint={hint}
      error={error}
      inline={inline}
      className={className}
      control={(ids) => (
        <select {...select} {...ids}>
          {options?.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
          {children}
        </select>
      )}
    />
  );
}
