#!/usr/bin/env node
// Creates an S3 bucket if it does not exist, with a hand-signed (SigV4, path-style) request.
// Node built-ins only, so it runs before `npm ci` and inside the runtime image.
//
//   node scripts/s3-ensure-bucket.mjs        reads S3_ENDPOINT, S3_REGION, S3_BUCKET,
//                                            S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY
//
// Used by scripts/stack.mjs (native and Docker mode) and by the `s3-init` service of
// docker-compose.yml. Waits up to S3_WAIT_SECONDS (default 60) for the endpoint.
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { pathToFileURL } from 'node:url';

const sha256hex = (data) => createHash('sha256').update(data).digest('hex');
const hmac = (key, data) => createHmac('sha256', key).update(data).digest();

function signedRequest({ method, endpoint, region, accessKeyId, secretAccessKey, path }) {
  const url = new URL(path, endpoint);
  const amzDate = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256hex('');
  const headers = {
    host: url.host,
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': amzDate,
  };
  const signedHeaders = Object.keys(headers).sort().join(';');
  const canonicalHeaders = Object.keys(headers)
    .sort()
    .map((k) => `${k}:${headers[k]}\n`)
    .join('');
  const canonicalRequest = [method, url.pathname, '', canonicalHeaders, signedHeaders, payloadHash].join(
    '\n',
  );
  const scope = `${day}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(canonicalRequest)].join('\n');
  const kSigning = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', kSigning).update(stringToSign).digest('hex');
  headers.authorization =
    `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  headers['content-length'] = '0';

  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method, headers, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`timeout on ${method} ${url.href}`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * @param {{endpoint: string, region?: string, bucket: string, accessKeyId: string,
 *          secretAccessKey: string, waitSeconds?: number}} opts
 * @returns {Promise<'exists' | 'created'>}
 */
export async function ensureBucket(opts) {
  const { endpoint, bucket, accessKeyId, secretAccessKey } = opts;
  const region = opts.region || 'us-east-1';
  const deadline = Date.now() + (opts.waitSeconds ?? 60) * 1000;
  const path = `/${encodeURIComponent(bucket)}`;
  const common = { endpoint, region, accessKeyId, secretAccessKey, path };
  let lastError;
  for (;;) {
    try {
      const head = await signedRequest({ ...common, method: 'HEAD' });
      if (head.status === 200) return 'exists';
      if (head.status === 404) {
        const put = await signedRequest({ ...common, method: 'PUT' });
        if (put.status === 200) return 'created';
        if (put.status === 409 && /BucketAlreadyOwnedByYou/.test(put.body)) return 'exists';
        lastError = new Error(`PUT ${path} answered ${put.status}: ${put.body.slice(0, 500)}`);
      } else {
        lastError = new Error(`HEAD ${path} answered ${head.status}`);
      }
      // 403 (bad credentials) and other definite answers will not improve by waiting.
      if (head.status === 403 || head.status === 400) throw lastError;
    } catch (err) {
      lastError = err;
      if (/answered (400|403)/.test(String(err?.message))) throw err;
    }
    if (Date.now() > deadline) throw lastError ?? new Error(`cannot reach ${endpoint}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const env = process.env;
  const missing = ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'].filter(
    (k) => !env[k],
  );
  if (missing.length) {
    console.error(`s3-ensure-bucket: missing environment variables: ${missing.join(', ')}`);
    process.exit(2);
  }
  ensureBucket({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    bucket: env.S3_BUCKET,
    accessKeyId: env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    waitSeconds: Number(env.S3_WAIT_SECONDS || 60),
  }).then(
    (r) => console.log(`s3-ensure-bucket: bucket ${env.S3_BUCKET} ${r} at ${env.S3_ENDPOINT}`),
    (err) => {
      console.error(`s3-ensure-bucket: ${err?.message ?? err}`);
      process.exit(1);
    },
  );
}
