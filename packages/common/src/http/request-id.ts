import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'x-request-id';
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A client's own request id is kept when it is sane; otherwise a new one is made. */
export function pickRequestId(candidate: string | undefined): string {
  return candidate && SANE_REQUEST_ID.test(candidate) ? candidate : randomUUID();
}

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  req.id = pickRequestId(req.header(REQUEST_ID_HEADER));
  res.setHeader(REQUEST_ID_HEADER, req.id);
  next();
}
