import { createCodeEvent, createEvent, errors, type ProjectId } from '@baas/common';
import type { AuthDeps } from '../deps';
import { DuplicateEmailError, DuplicateProfileValueError } from '../../ports';
import { newCode } from '../codes/one-time-code';
import { startSession, type IssuedTokens } from '../sessions/start-session';
import { authErrors } from './auth-errors';
import { normalizeEmail, type User } from './user';
import { validateProfile } from './users-schema';
import { assertUniqueProfileFields, duplicateProfileValue, uniqueProfileKeys } from './unique-fields';

export interface SignupInput {
  projectId: ProjectId;
  requestId: string;
  publicSignups: boolean;
  requireEmailVerification: boolean;
  email: string;
  password: string;
  profile: Record<string, unknown>;
}

/**
 * Creates a user with a verification code (user.created and auth.verification_requested are
 * recorded in the same insert) and, unless the project requires verified emails first, a session.
 */
export async function signup(
  deps: AuthDeps,
  input: SignupInput,
): Promise<{ user: User; tokens?: IssuedTokens }> {
  if (!input.publicSignups) throw authErrors.signupsDisabled();
  const { projectId } = input;
  const fields = (await deps.schemas.get(projectId)) ?? [];
  const problems = validateProfile(fields, input.profile, 'all');
  if (problems.length > 0) throw errors.validation('Validation failed', problems);
  await assertUniqueProfileFields(deps, projectId, fields, input.profile);
  if (await deps.users.findByEmail(projectId, normalizeEmail(input.email))) throw authErrors.duplicateEmail();

  const passwordHash = await deps.hasher.hash(input.password);
  const now = deps.clock();
  const userId = deps.ids.userId();
  const code = newCode(
    deps.secrets.codes,
    'verify_email',
    projectId,
    userId,
    now,
    deps.policy.verificationCodeTtlSeconds,
  );
  const meta = { requestId: input.requestId };
  const email = input.email.trim();
  const events = [
    createEvent('user.created', projectId, { userId, email }, meta),
    createCodeEvent(
      deps.mailEnvelopeKey,
      'auth.verification_requested',
      projectId,
      { userId, email, expiresAt: code.stored.expiresAt.toISOString() },
      { token: code.token, otp: code.otp },
      meta,
    ),
  ];
  let user: User;
  try {
    user = await deps.users.insert(
      projectId,
      {
        id: userId,
        email,
        passwordHash,
        profile: input.profile,
        codes: { verify_email: code.stored },
        createdAt: now,
      },
      events,
      uniqueProfileKeys(fields),
    );
  } catch (e) {
    if (e instanceof DuplicateEmailError) throw authErrors.duplicateEmail();
    if (e instanceof DuplicateProfileValueError) throw duplicateProfileValue(e.key);
    throw e;
  }
  if (input.requireEmailVerification) return { user };
  return { user, tokens: await startSession(deps, projectId, user) };
}
