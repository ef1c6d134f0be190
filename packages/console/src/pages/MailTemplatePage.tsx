import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import { ApiError } from '../api/errors';
import { mailTemplatesApi, type MailOwner, type MailTemplate, type RenderedMail } from '../api/mail';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextAreaField, TextField } from '../components/Field';
import { MailPreviewFrame } from '../components/MailPreviewFrame';
import {
  formFromTemplate,
  isDirty,
  keyProblem,
  newTemplateForm,
  parseVariables,
  previewBody,
  saveBody,
  templateVariables,
  withSampleVariables,
  type BodyFormat,
  type TemplateForm,
} from '../lib/mail-template';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { Link, navigate, usePageTitle } from '../router';
import './mail.css';

/** How long typing pauses before the preview is asked for again. */
const PREVIEW_DELAY_MS = 350;

/**
 * The sample variables typed for a template, kept in this tab's memory while the console is open
 * (a save, or leaving and coming back, keeps them); the API does not store them.
 */
const sampleDrafts = new Map<string, string>();
const draftKey = (owner: MailOwner, key: string) =>
  `${owner.scope === 'project' ? owner.projectId : '*'}/${key}`;

export interface MailTemplatePageProps {
  owner: MailOwner;
  /** The template's key; undefined: a new template. */
  templateKey: string | undefined;
  /** The list's path (`/projects/<id>/mail`, `/mail-templates`). */
  base: string;
  /** Whose templates, in words (`Project x`, `Global`), for the title. */
  scopeLabel: string;
  /** Whether the session may change templates and render previews (developer and up). */
  canWrite: boolean;
}

/** A template of a project or a global one: load it (or start a new one), then the editor. */
export function MailTemplatePage(p: MailTemplatePageProps) {
  usePageTitle(`${p.templateKey ? `Template ${p.templateKey}` : 'New template'} · ${p.scopeLabel}`);
  const api = useApi();
  const projectId = p.owner.scope === 'project' ? p.owner.projectId : undefined;
  const { templateKey } = p;
  const loaded = useLoad(
    async (): Promise<MailTemplate | undefined> =>
      templateKey === undefined
        ? undefined
        : mailTemplatesApi(
            api,
            projectId === undefined ? { scope: 'global' } : { scope: 'project', projectId },
          ).get(templateKey),
    [api, projectId, templateKey],
  );
  if (templateKey !== undefined && !loaded.data)
    return (
      <main id="main" className="page">
        <p>
          <Link to={p.base}>← Mail templates</Link>
        </p>
        <h1 tabIndex={-1}>
          Template <span className="mono">{templateKey}</span>
        </h1>
        {loaded.loading ? <p role="status">Loading…</p> : <ErrorNotice error={loaded.error} />}
      </main>
    );
  return <Editor {...p} initial={loaded.data} />;
}

function Editor({
  owner,
  base,
  canWrite,
  initial,
}: MailTemplatePageProps & { initial: MailTemplate | undefined }) {
  const api = useApi();
  const id = useId();
  const projectId = owner.scope === 'project' ? owner.projectId : undefined;
  const templates = useMemo(
    () =>
      mailTemplatesApi(api, projectId === undefined ? { scope: 'global' } : { scope: 'project', projectId }),
    [api, projectId],
  );
  const [saved, setSaved] = useState<MailTemplate | undefined>(initial);
  const [form, setForm] = useState<TemplateForm>(() =>
    initial ? formFromTemplate(initial) : newTemplateForm(),
  );
  const [variablesText, setVariablesText] = useState(() => {
    const kept = initial ? sampleDrafts.get(draftKey(owner, initial.key)) : undefined;
    if (kept !== undefined) return kept;
    const f = initial ? formFromTemplate(initial) : newTemplateForm();
    return JSON.stringify(withSampleVariables({}, templateVariables(f.subject, f.body, f.text)), null, 2);
  });
  const { busy, error, run } = useAction();
  const [status, setStatus] = useState('');
  const [deleting, setDeleting] = useState(false);
  const [keyTouched, setKeyTouched] = useState(false);

  const variables = parseVariables(variablesText);
  const isNew = saved === undefined;
  const dirty = isDirty(form, saved);
  const badKey = isNew ? keyProblem(form.key) : undefined;
  const set = (change: Partial<TemplateForm>) => setForm((f) => ({ ...f, ...change }));

  // The sample variables outlive a save and a visit elsewhere (in memory, for this tab).
  const draft = saved ? draftKey(owner, saved.key) : undefined;
  useEffect(() => {
    if (draft !== undefined) sampleDrafts.set(draft, variablesText);
  }, [draft, variablesText]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setKeyTouched(true);
    if (badKey) return;
    setStatus('');
    await run(async () => {
      const key = saved?.key ?? form.key;
      const stored = await templates.save(key, saveBody(form));
      sampleDrafts.set(draftKey(owner, key), variablesText);
      if (isNew) {
        navigate(`${base}/templates/${encodeURIComponent(key)}`, { replace: true });
        return;
      }
      setSaved(stored);
      setForm(formFromTemplate(stored));
      setStatus('Saved.');
    });
  };

  const remove = async () => {
    if (!saved) return;
    const done = await run(async () => {
      await templates.remove(saved.key);
      sampleDrafts.delete(draftKey(owner, saved.key));
      navigate(base);
    });
    if (!done) setDeleting(false);
  };

  const addMissing = () => {
    if (!variables.ok) return;
    const names = templateVariables(form.subject, form.body, form.text);
    setVariablesText(JSON.stringify(withSampleVariables(variables.value, names), null, 2));
  };

  const title = saved ? (
    <>
      Template <span className="mono">{saved.key}</span>
    </>
  ) : (
    'New template'
  );
  const bodyLabel = form.format === 'mjml' ? 'MJML' : 'HTML';
  return (
    <main id="main" className="page mail-editor-page">
      <p>
        <Link to={base}>← Mail templates</Link>
      </p>
      <h1 tabIndex={-1}>{title}</h1>
      <div className="mail-editor">
        <form className="form mail-form" onSubmit={(e) => void save(e)} aria-label="Template">
          {isNew ? (
            <TextField
              label="Key"
              value={form.key}
              onChange={(e) => set({ key: e.target.value })}
              onBlur={() => setKeyTouched(true)}
              error={keyTouched ? badKey : undefined}
              hint="What sends name it (templateName); letters, digits, . _ -"
              required
              autoComplete="off"
              spellCheck={false}
              className="mono-area"
            />
          ) : null}
          <TextField
            label="Name"
            value={form.name}
            onChange={(e) => set({ name: e.target.value })}
            hint="For people; the key when left empty"
            disabled={!canWrite}
            autoComplete="off"
          />
          <TextField
            label="Subject"
            value={form.subject}
            onChange={(e) => set({ subject: e.target.value })}
            required
            disabled={!canWrite}
            autoComplete="off"
          />
          <fieldset className="format-choice" disabled={!canWrite}>
            <legend>HTML part written as</legend>
            {(['mjml', 'html'] as const).map((f: BodyFormat) => (
              <label key={f} className="check">
                <input
                  type="radio"
                  name={`${id}-format`}
                  value={f}
                  checked={form.format === f}
                  onChange={() => set({ format: f })}
                />
                {f === 'mjml' ? 'MJML (compiled to HTML by the server)' : 'HTML'}
              </label>
            ))}
          </fieldset>
          <TextAreaField
            label={bodyLabel}
            value={form.body}
            onChange={(e) => set({ body: e.target.value })}
            hint="Mustache variables: {{name}} (escaped), {{{name}}} (as is), {{#items}}…{{/items}}"
            rows={14}
            spellCheck={false}
            className="mono-area"
            readOnly={!canWrite}
          />
          <TextAreaField
            label="Plain text part"
            value={form.text}
            onChange={(e) => set({ text: e.target.value })}
            hint="Optional; mail clients without HTML show it"
            rows={5}
            spellCheck={false}
            readOnly={!canWrite}
          />
          <ErrorNotice error={error} />
          <p role="status" className="status">
            {status}
          </p>
          {canWrite && (
            <div className="form-actions">
              <button type="submit" className="primary" disabled={busy || (!isNew && !dirty)}>
                {isNew ? 'Create the template' : 'Save'}
              </button>
              {!isNew && dirty && <span className="muted">Unsaved changes</span>}
              {saved && (
                <button
                  type="button"
                  className="danger-text"
                  onClick={() => setDeleting(true)}
                  disabled={busy}
                >
                  Delete the template
                </button>
              )}
            </div>
          )}
        </form>
        <section className="mail-side" aria-labelledby={`${id}-preview`}>
          <h2 id={`${id}-preview`}>Preview</h2>
          <TextAreaField
            label="Sample variables (JSON)"
            value={variablesText}
            onChange={(e) => setVariablesText(e.target.value)}
            error={variables.ok ? undefined : variables.message}
            hint="Rendered into the preview and a test mail; kept in this tab only"
            rows={6}
            spellCheck={false}
            className="mono-area"
          />
          <p>
            <button type="button" onClick={addMissing} disabled={!variables.ok}>
              Add the template’s variables
            </button>
          </p>
          <Preview
            render={canWrite ? templates.preview : undefined}
            form={form}
            variables={variables.ok ? variables.value : undefined}
            stored={saved}
          />
          {owner.scope === 'project' && saved && canWrite && (
            <TestSend
              projectId={owner.projectId}
              templateKey={saved.key}
              variables={variables.ok ? variables.value : undefined}
              dirty={dirty}
              logPath={`${base}/messages`}
            />
          )}
          {owner.scope === 'global' && (
            <p className="help">
              A test send is a project’s: open a project’s mail page to send one of its own templates.
            </p>
          )}
        </section>
      </div>
      <ConfirmDialog
        title={`Delete the template ${saved?.key ?? ''}?`}
        open={deleting}
        onCancel={() => setDeleting(false)}
        onConfirm={remove}
        confirmLabel="Delete the template"
        danger
        busy={busy}
      >
        <p>The template is deleted for good.</p>
      </ConfirmDialog>
    </main>
  );
}

type PreviewState =
  | { state: 'idle' }
  | { state: 'loading'; last?: RenderedMail }
  | { state: 'done'; mail: RenderedMail }
  | { state: 'failed'; error: unknown; last?: RenderedMail };

/**
 * The mail rendered by the server from the form and the sample variables, asked again a moment
 * after each change (the previous question cancelled). Without the right to render (a viewer),
 * the stored HTML is shown as it is, variables unreplaced.
 */
function Preview({
  render,
  form,
  variables,
  stored,
}: {
  render: ((body: ReturnType<typeof previewBody>, signal?: AbortSignal) => Promise<RenderedMail>) | undefined;
  form: TemplateForm;
  variables: Record<string, unknown> | undefined;
  stored: MailTemplate | undefined;
}) {
  const [state, setState] = useState<PreviewState>({ state: 'idle' });
  const body = useMemo(
    () => (variables === undefined ? undefined : JSON.stringify(previewBody(form, variables))),
    [form, variables],
  );
  const lastRendered = useRef<RenderedMail | undefined>(undefined);

  useEffect(() => {
    if (!render || body === undefined) return;
    const abort = new AbortController();
    const timer = setTimeout(() => {
      setState({ state: 'loading', last: lastRendered.current });
      render(JSON.parse(body) as ReturnType<typeof previewBody>, abort.signal).then(
        (mail) => {
          lastRendered.current = mail;
          setState({ state: 'done', mail });
        },
        (error: unknown) => {
          if (abort.signal.aborted) return;
          setState({ state: 'failed', error, last: lastRendered.current });
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [render, body]);

  let mail: RenderedMail | undefined;
  if (!render)
    mail = stored && {
      subject: stored.subject,
      html: stored.compiledHtml ?? stored.html,
      text: stored.text,
    };
  else if (state.state === 'done') mail = state.mail;
  else if (state.state !== 'idle') mail = state.last;

  return (
    <div className="mail-preview" aria-busy={state.state === 'loading'}>
      {!render && (
        <p className="help">
          Your role shows the stored template as it is: rendering it with variables needs the developer role.
        </p>
      )}
      {render && variables === undefined && (
        <p className="help">Fix the sample variables to see the preview.</p>
      )}
      {state.state === 'failed' && <PreviewError error={state.error} />}
      <p role="status" className="muted preview-status">
        {state.state === 'loading' ? 'Rendering…' : state.state === 'done' ? 'Rendered by the server.' : ''}
      </p>
      {mail && (
        <>
          <dl className="facts">
            <dt>Subject</dt>
            <dd data-testid="preview-subject">{mail.subject}</dd>
          </dl>
          {mail.html !== null ? (
            <MailPreviewFrame html={mail.html} title="Preview of the HTML part" />
          ) : (
            <p className="muted">No HTML part.</p>
          )}
          {mail.text !== null && (
            <>
              <h3>Plain text part</h3>
              <pre className="json-view mail-text">{mail.text}</pre>
            </>
          )}
        </>
      )}
    </div>
  );
}

/** A preview refused by the server: the compiler's or the parser's message, said as such. */
function PreviewError({ error }: { error: unknown }) {
  if (error instanceof ApiError && error.status === 400)
    return (
      <div className="notice notice-error" role="alert">
        <p>
          <strong>The template does not render: {error.message}</strong>{' '}
          <span className="muted">({error.code})</span>
        </p>
      </div>
    );
  return <ErrorNotice error={error} />;
}

/** Sends the saved template to an address with the sample variables; it counts as a send. */
function TestSend({
  projectId,
  templateKey,
  variables,
  dirty,
  logPath,
}: {
  projectId: string;
  templateKey: string;
  variables: Record<string, unknown> | undefined;
  dirty: boolean;
  logPath: string;
}) {
  const api = useApi();
  const [to, setTo] = useState('');
  const { busy, error, run } = useAction();
  const [status, setStatus] = useState('');

  const send = async (e: FormEvent) => {
    e.preventDefault();
    if (variables === undefined) return;
    setStatus('');
    await run(async () => {
      const answer = await ok(
        api.POST('/api/admin/projects/{projectId}/mail/templates/{key}/test', {
          params: { path: { projectId, key: templateKey } },
          body: { to, variables },
        }),
      );
      setStatus(
        `Test mail sent to ${to} (${answer.data.monthlyUsage} of ${answer.data.monthlyLimit} mails this month).`,
      );
    });
  };

  return (
    <form className="test-send" onSubmit={(e) => void send(e)} aria-label="Send a test">
      <h3>Send a test</h3>
      <div className="toolbar">
        <TextField
          label="To"
          type="email"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          required
          inline
          className="grow"
          autoComplete="off"
        />
        <button type="submit" disabled={busy || dirty || variables === undefined}>
          {busy ? 'Sending…' : 'Send the test'}
        </button>
      </div>
      <p className="help">
        {dirty
          ? 'Save first: a test sends the saved template.'
          : 'Sends the saved template with the sample variables; it counts against the monthly limit.'}{' '}
        <Link to={logPath}>Sent mail</Link>
      </p>
      <ErrorNotice error={error} />
      <p role="status" className="status">
        {status}
      </p>
    </form>
  );
}
