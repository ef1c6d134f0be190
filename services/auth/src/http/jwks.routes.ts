import { Router } from 'express';
import { JWKS_PATH } from '@baas/common';
import type { KeyStore } from '../domain/keys/key-store';

/**
 * The public keys access tokens are verified with. Public (no gateway assertion): the data and
 * storage services fetch it from the auth service directly, clients through the gateway.
 */
export function jwksRoutes(keys: KeyStore): Router {
  const r = Router();
  r.get(JWKS_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=60');
    res.json(keys.jwks());
  });
  return r;
}
