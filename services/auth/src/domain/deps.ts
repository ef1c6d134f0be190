import type { AccessTokenVerifier, MailEnvelopeKey } from '@baas/common';
import type {
  AuditLog,
  AuthObserver,
  CodeClaims,
  LoginThrottle,
  PasswordHasher,
  SessionRepository,
  UserRepository,
  UsersSchemaRepository,
} from '../ports';
import type { AuthKeys } from './crypto/secrets';
import type { KeyStore } from './keys/key-store';

/** Lifetimes and limits, from config. */
export interface AuthPolicy {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  refreshReuseGraceSeconds: number;
  refreshFamilyMaxSeconds: number;
  verificationCodeTtlSeconds: number;
  resetCodeTtlSeconds: number;
  codeMaxAttempts: number;
  codeResendIntervalSeconds: number;
}

/** What the end-user auth use cases need. */
export interface AuthDeps {
  users: UserRepository;
  sessions: SessionRepository;
  schemas: UsersSchemaRepository;
  claims: CodeClaims;
  hasher: PasswordHasher;
  loginThrottle: LoginThrottle;
  keys: KeyStore;
  verifier: AccessTokenVerifier;
  secrets: AuthKeys;
  /** Seals the codes of verification and reset events for the mail service. */
  mailEnvelopeKey: MailEnvelopeKey;
  policy: AuthPolicy;
  clock: () => Date;
  ids: { userId(): string; familyId(): string };
  /** Counts login outcomes (metrics); none in tests that do not look. */
  observer?: AuthObserver;
  /** End users' security events (sign-ins, refresh-token reuse) are appended here. */
  audit: AuditLog;
}
