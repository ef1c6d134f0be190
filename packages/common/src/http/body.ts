import type { RequestHandler } from 'express';

/** JSON body parser with a size cap; malformed JSON and oversize bodies become contract errors. */
export function jsonBody(limit: string | number = '100kb'): RequestHandler {
  // loaded here, as in createServiceApp: a process without an express app never loads it
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const express = require('express') as typeof import('express');
  return express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] });
}
