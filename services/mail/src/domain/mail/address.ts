import { errors } from '@baas/common';

/**
 * One bare address, nothing else: no display name, no list, no comments, no whitespace or
 * control characters. That leaves nodemailer nothing to interpret, so `to` can never add a
 * header or a second recipient.
 */
const LOCAL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isValidAddress(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || value.indexOf('@') !== at) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!LOCAL.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..'))
    return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((l) => LABEL.test(l));
}

/** The recipient of a send: one address as a string, or 400. */
export function parseRecipient(to: unknown): string {
  if (typeof to !== 'string')
    throw errors.validation('`to` must be one email address (a string)', [
      { path: 'to', message: 'must be a string' },
    ]);
  if (!isValidAddress(to))
    throw errors.validation('`to` must be one plain email address', [
      { path: 'to', message: 'must be a single address like user@example.com, without a display name' },
    ]);
  return to;
}

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}
