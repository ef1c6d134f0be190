import express, { type RequestHandler } from 'express';

/** JSON body parser with a size cap; malformed JSON and oversize bodies become contract errors. */
export function jsonBody(limit: string | number = '100kb'): RequestHandler {
  return express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] });
}
