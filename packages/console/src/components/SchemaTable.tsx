import { flattenSchema } from '../lib/schema-model';
import { TableHead } from './Paging';

/** A schema as it is (for roles that do not edit it): one row per declared field. */
export function SchemaTable({
  fields,
  caption,
  withIndex = true,
}: {
  /** The API's field list. */
  fields: unknown;
  caption: string;
  withIndex?: boolean;
}) {
  const rows = flattenSchema(fields);
  if (rows.length === 0) return <p className="muted">No declared fields.</p>;
  const yes = (b: boolean) => (b ? 'yes' : '');
  return (
    <table className="table">
      <caption className="visually-hidden">{caption}</caption>
      <TableHead columns={['Field', 'Type', 'Required', 'Unique', ...(withIndex ? ['Index'] : [])]} />
      <tbody>
        {rows.map((r) => (
          <tr key={r.path}>
            <th scope="row" className="mono">
              {r.path}
            </th>
            <td>{r.type}</td>
            <td>{yes(r.required)}</td>
            <td>{yes(r.unique)}</td>
            {withIndex && <td>{yes(r.index)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
