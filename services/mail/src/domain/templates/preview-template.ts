import { z } from 'zod';
import { renderMail, type RenderedMail } from '../mail/render';
import { sanitizeVariables } from '../mail/sanitize-variables';
import { prepareTemplate } from './compile';
import { mailContentOf } from './resolve-template';
import { templateBodySchema } from './template';

/** Body of POST .../mail/preview: a template as it would be saved, and sample variables. */
export const previewBodySchema = templateBodySchema
  .omit({ name: true })
  .extend({ variables: z.record(z.string(), z.unknown()).optional() })
  .strict();

export type PreviewInput = z.infer<typeof previewBodySchema>;

/**
 * Renders a template without saving or sending it, through exactly what a save and a send do:
 * mustache must parse and MJML compile (400 with the compiler's message otherwise), then the
 * variables are substituted under the render bounds.
 */
export async function previewTemplate(input: PreviewInput): Promise<RenderedMail> {
  const { variables, ...body } = input;
  const content = await prepareTemplate('preview', body);
  return renderMail(mailContentOf(content), sanitizeVariables(variables));
}
