import { CopyField } from './CopyField';

/** New keys, shown this once: the API stores only their hashes. */
export function KeysReveal({ publishableKey, secretKey }: { publishableKey?: string; secretKey?: string }) {
  return (
    <div className="keys-reveal">
      <p className="notice notice-warn">
        Copy the new key{publishableKey && secretKey ? 's' : ''} now: the platform keeps only a hash and will
        not show {publishableKey && secretKey ? 'them' : 'it'} again.
      </p>
      {publishableKey && (
        <CopyField label="Publishable key (pk_live_…, for browsers and apps)" value={publishableKey} />
      )}
      {secretKey && <CopyField label="Secret key (sk_live_…, for servers only)" value={secretKey} />}
    </div>
  );
}
