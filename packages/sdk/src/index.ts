export { createClient, type BaasClient, type ClientOptions } from './client.js';
export {
  AuthClient,
  type AuthEvent,
  type AuthListener,
  type AuthResult,
  type BaasUser,
  type PublicProfile,
  type ResetPasswordInput,
  type Session,
  type SignupInput,
  type TokenMode,
  type VerifyEmailInput,
} from './auth.js';
export {
  Collection,
  type Condition,
  type Doc,
  type DotPath,
  type Filter,
  type IterateOptions,
  type ListOptions,
  type NewDoc,
  type Operators,
  type Page,
  type PipelineStage,
  type SortKey,
  type SystemFields,
  type UpdateDoc,
} from './data.js';
export { BaasError, isBaasError, type ErrorDetail } from './errors.js';
export type { XhrConstructor, XhrLike } from './env.js';
export { StorageClient, type ReactNativeFile, type UploadOptions, type UploadResult } from './files.js';
export type { CallOptions, FetchInit, FetchLike, RetryOptions, UploadProgress } from './http.js';
export {
  MailClient,
  type DirectMail,
  type MailInput,
  type MailSendResult,
  type TemplateMail,
} from './mail.js';
export { localStorageAdapter, memoryStorage, type TokenStorage } from './token-storage.js';
