import { z } from 'zod';
import type { ProjectId } from '@baas/common';

/** A project override, or a global (platform-wide, "system") template. */
export type TemplateOwner = { scope: 'project'; projectId: ProjectId } | { scope: 'global' };

export const TEMPLATE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MAX_TEMPLATE_CHARS = 256 * 1024;
export const MAX_SUBJECT_CHARS = 998;

/**
 * No part of a template may hold U+0000: no mail can carry it (RFC 5322), and PostgreSQL text
 * cannot store it, so it is refused with 400 on every store rather than failing in the database.
 */
const noNul = (s: z.ZodString) => s.refine((v) => !v.includes('\u0000'), 'must not contain U+0000');

/** Body of PUT .../mail/templates/:key. */
export const templateBodySchema = z
  .object({
    name: noNul(z.string().trim().min(1).max(128)).optional(),
    subject: noNul(z.string().min(1).max(MAX_SUBJECT_CHARS)),
    html: noNul(z.string().max(MAX_TEMPLATE_CHARS)).optional(),
    text: noNul(z.string().max(MAX_TEMPLATE_CHARS)).optional(),
    mjml: noNul(z.string().max(MAX_TEMPLATE_CHARS)).optional(),
  })
  .strict();

export type TemplateBody = z.infer<typeof templateBodySchema>;

/** What is stored: the authored parts, plus the HTML compiled from MJML at save time. */
export interface TemplateContent {
  name: string;
  subject: string;
  html?: string;
  text?: string;
  mjml?: string;
  compiledHtml?: string;
}

export interface StoredTemplate extends TemplateContent {
  id: string;
  key: string;
  owner: TemplateOwner;
  createdAt: Date;
  updatedAt: Date;
}

/** The shape the admin API answers with. */
export function templateView(t: StoredTemplate) {
  return {
    id: t.id,
    key: t.key,
    name: t.name,
    scope: t.owner.scope,
    projectId: t.owner.scope === 'project' ? t.owner.projectId : null,
    subject: t.subject,
    html: t.html ?? null,
    text: t.text ?? null,
    mjml: t.mjml ?? null,
    compiledHtml: t.compiledHtml ?? null,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
