import { useId } from 'react';
import { SelectField } from './Field';
import { FIELD_TYPES, moveField, newField, updateField, type EditableField } from '../lib/schema-model';

interface SchemaEditorProps {
  fields: EditableField[];
  onChange: (fields: EditableField[]) => void;
  /** Offer `index` (collections; the users schema has none). */
  withIndex?: boolean;
  /** Problems by field path, from the editor's own checks or the API's details. */
  problems?: ReadonlyMap<string, string>;
}

/** A field list: name, type, required, unique, index, nested fields of Objects and Array elements. */
export function SchemaEditor({ fields, onChange, withIndex = true, problems }: SchemaEditorProps) {
  const change = (uid: string, f: (x: EditableField) => EditableField | undefined) =>
    onChange(updateField(fields, uid, f));
  const move = (uid: string, by: -1 | 1) => onChange(moveField(fields, uid, by));
  return (
    <FieldList
      fields={fields}
      parentLabel=""
      path=""
      onAdd={() => onChange([...fields, newField()])}
      change={change}
      move={move}
      withIndex={withIndex}
      problems={problems}
    />
  );
}

interface ListProps {
  fields: EditableField[];
  parentLabel: string;
  path: string;
  onAdd: () => void;
  change: (uid: string, f: (x: EditableField) => EditableField | undefined) => void;
  move: (uid: string, by: -1 | 1) => void;
  withIndex: boolean;
  problems: ReadonlyMap<string, string> | undefined;
}

function FieldList(p: ListProps) {
  return (
    <div className={p.parentLabel ? 'schema-list nested' : 'schema-list'}>
      {p.fields.length === 0 && (
        <p className="muted">{p.parentLabel ? `${p.parentLabel} has no declared fields.` : 'No fields.'}</p>
      )}
      {p.fields.map((f, i) => (
        <FieldRow key={f.uid} field={f} position={i} count={p.fields.length} {...p} />
      ))}
      <button type="button" onClick={p.onAdd}>
        {p.parentLabel ? `Add a field to ${p.parentLabel}` : 'Add a field'}
      </button>
    </div>
  );
}

function FieldRow(p: ListProps & { field: EditableField; position: number; count: number }) {
  const { field: f, change } = p;
  const id = useId();
  const name = f.key.trim() || `field ${p.position + 1}`;
  const path = p.path
    ? `${p.path}.${f.key.trim() || `#${p.position + 1}`}`
    : f.key.trim() || `#${p.position + 1}`;
  const problem = p.problems?.get(path);
  const set = (patch: Partial<EditableField>) => change(f.uid, (x) => ({ ...x, ...patch }));
  const types = FIELD_TYPES.includes(f.type as (typeof FIELD_TYPES)[number])
    ? FIELD_TYPES
    : [...FIELD_TYPES, f.type];
  return (
    <fieldset className={problem ? 'schema-field invalid' : 'schema-field'}>
      <legend className="visually-hidden">{`Field ${name}`}</legend>
      <div className="schema-row">
        <div className="field inline">
          <label htmlFor={`${id}-key`}>Name</label>
          <input
            id={`${id}-key`}
            value={f.key}
            onChange={(e) => set({ key: e.target.value })}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
          />
        </div>
        <SelectField
          label="Type"
          inline
          value={f.type}
          onChange={(e) => set({ type: e.target.value })}
          options={types.map((t) => [t, t] as const)}
        />
        <label className="check">
          <input type="checkbox" checked={f.required} onChange={(e) => set({ required: e.target.checked })} />
          Required
        </label>
        <label className="check">
          <input type="checkbox" checked={f.unique} onChange={(e) => set({ unique: e.target.checked })} />
          Unique
        </label>
        {p.withIndex && (
          <label className="check">
            <input type="checkbox" checked={f.index} onChange={(e) => set({ index: e.target.checked })} />
            Index
          </label>
        )}
        <span className="row-actions">
          <button
            type="button"
            onClick={() => p.move(f.uid, -1)}
            disabled={p.position === 0}
            aria-label={`Move ${name} up`}
          >
            ↑
          </button>
          <button
            type="button"
            onClick={() => p.move(f.uid, 1)}
            disabled={p.position === p.count - 1}
            aria-label={`Move ${name} down`}
          >
            ↓
          </button>
          <button type="button" className="danger-text" onClick={() => change(f.uid, () => undefined)}>
            Remove<span className="visually-hidden"> {name}</span>
          </button>
        </span>
      </div>
      {problem && (
        <p className="field-error" id={`${id}-problem`}>
          {problem}
        </p>
      )}
      {f.type === 'Object' && (
        <FieldList
          {...p}
          fields={f.fields}
          parentLabel={name}
          path={path}
          onAdd={() => set({ fields: [...f.fields, newField()] })}
        />
      )}
      {f.type === 'Array' && (
        <div className="schema-items">
          <SelectField
            label={`Element type of ${name}`}
            inline
            value={f.itemType}
            onChange={(e) => set({ itemType: e.target.value })}
            options={FIELD_TYPES.map((t) => [t, t] as const)}
          />
          {f.itemType === 'Object' && (
            <FieldList
              {...p}
              fields={f.itemFields}
              parentLabel={`${name}[]`}
              path={`${path}[]`}
              onAdd={() => set({ itemFields: [...f.itemFields, newField()] })}
            />
          )}
        </div>
      )}
    </fieldset>
  );
}
