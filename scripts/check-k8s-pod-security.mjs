#!/usr/bin/env node
/**
 * Checks rendered manifests against the Pod Security Standard "restricted" (the profile the
 * namespaces of deploy/k8s enforce): every pod template of a Deployment, StatefulSet, DaemonSet,
 * ReplicaSet, Job, CronJob or Pod. The same checks, by the same names, as the admission controller
 * (k8s.io/pod-security-admission, policy version "latest" as of Kubernetes 1.33):
 *
 *   baseline:   hostNetwork/hostPID/hostIPC, privileged, capabilities beyond the baseline set,
 *               hostPath volumes, hostPorts, AppArmor, SELinux options, /proc mount, seccomp
 *               Unconfined, unsafe sysctls, Windows hostProcess
 *   restricted: volume types, allowPrivilegeEscalation false, runAsNonRoot true, runAsUser not 0,
 *               seccompProfile RuntimeDefault or Localhost, capabilities drop ALL and add at most
 *               NET_BIND_SERVICE
 *
 *   kustomize build deploy/k8s/overlays/production | node scripts/check-k8s-pod-security.mjs
 *   node scripts/check-k8s-pod-security.mjs rendered.yaml ...
 *
 * Exit 1 and one line per violation when anything fails.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const RESTRICTED_VOLUMES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
const SELINUX_TYPES = new Set([
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
]);

/** The pod spec inside a workload, or undefined for kinds that run no pods. */
export function podSpecOf(doc) {
  switch (doc?.kind) {
    case 'Pod':
      return doc.spec;
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'Job':
      return doc.spec?.template?.spec;
    case 'CronJob':
      return doc.spec?.jobTemplate?.spec?.template?.spec;
    default:
      return undefined;
  }
}

/** Violations of the restricted profile in one pod spec, as "check: detail" strings. */
export function restrictedViolations(spec) {
  const problems = [];
  const pod = spec.securityContext ?? {};
  const containers = [
    ...(spec.initContainers ?? []).map((c) => ({ ...c, where: `initContainer ${c.name}` })),
    ...(spec.containers ?? []).map((c) => ({ ...c, where: `container ${c.name}` })),
    ...(spec.ephemeralContainers ?? []).map((c) => ({ ...c, where: `ephemeralContainer ${c.name}` })),
  ];
  const add = (check, detail) => problems.push(`${check}: ${detail}`);

  // --- baseline
  for (const f of ['hostNetwork', 'hostPID', 'hostIPC'])
    if (spec[f] === true) add('host namespaces', `${f}=true`);
  if (pod.windowsOptions?.hostProcess === true) add('hostProcess', 'pod windowsOptions.hostProcess=true');
  for (const v of spec.volumes ?? []) if (v.hostPath) add('hostPath volumes', `volume ${v.name}`);
  for (const s of pod.sysctls ?? []) if (!SAFE_SYSCTLS.has(s.name)) add('sysctls', `unsafe sysctl ${s.name}`);
  const checkSeLinux = (o, where) => {
    if (!o) return;
    if (!SELINUX_TYPES.has(o.type ?? '')) add('seLinuxOptions', `${where} type ${o.type}`);
    if (o.user || o.role) add('seLinuxOptions', `${where} sets user or role`);
  };
  checkSeLinux(pod.seLinuxOptions, 'pod');
  const checkAppArmor = (p, where) => {
    if (p && !['RuntimeDefault', 'Localhost'].includes(p.type)) add('appArmorProfile', `${where} ${p.type}`);
  };
  checkAppArmor(pod.appArmorProfile, 'pod');

  // --- restricted: pod-level defaults the containers may inherit
  for (const v of spec.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== 'name');
    if (type && !RESTRICTED_VOLUMES.has(type)) add('restricted volume types', `volume ${v.name} is ${type}`);
  }
  if (pod.runAsUser === 0) add('runAsUser', 'pod runAsUser=0');
  if (pod.runAsNonRoot === false) add('runAsNonRoot', 'pod runAsNonRoot=false');
  const podSeccomp = pod.seccompProfile?.type;
  if (podSeccomp !== undefined && !['RuntimeDefault', 'Localhost'].includes(podSeccomp))
    add('seccompProfile', `pod ${podSeccomp}`);

  for (const c of containers) {
    const sc = c.securityContext ?? {};
    if (sc.privileged === true) add('privileged', c.where);
    if (sc.windowsOptions?.hostProcess === true) add('hostProcess', c.where);
    for (const p of c.ports ?? []) if (p.hostPort) add('hostPorts', `${c.where} hostPort ${p.hostPort}`);
    if (sc.procMount && sc.procMount !== 'Default') add('procMount', `${c.where} ${sc.procMount}`);
    checkSeLinux(sc.seLinuxOptions, c.where);
    checkAppArmor(sc.appArmorProfile, c.where);
    const added = sc.capabilities?.add ?? [];
    for (const cap of added) {
      if (!BASELINE_CAPABILITIES.has(cap)) add('capabilities (baseline)', `${c.where} adds ${cap}`);
      if (cap !== 'NET_BIND_SERVICE') add('capabilities', `${c.where} adds ${cap}`);
    }
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) add('capabilities', `${c.where} does not drop ALL`);
    if (sc.allowPrivilegeEscalation !== false)
      add('allowPrivilegeEscalation', `${c.where} does not set allowPrivilegeEscalation=false`);
    const nonRoot = sc.runAsNonRoot ?? pod.runAsNonRoot;
    if (nonRoot !== true) add('runAsNonRoot', `${c.where} (nor the pod) sets runAsNonRoot=true`);
    if (sc.runAsUser === 0) add('runAsUser', `${c.where} runAsUser=0`);
    const seccomp = sc.seccompProfile?.type ?? podSeccomp;
    if (!['RuntimeDefault', 'Localhost'].includes(seccomp))
      add(
        'seccompProfile',
        `${c.where} (nor the pod) sets RuntimeDefault or Localhost (${seccomp ?? 'unset'})`,
      );
  }
  return problems;
}

/** Every violation in a stream of rendered manifests, as "Kind/name: check: detail". */
export function checkManifests(text) {
  const problems = [];
  let pods = 0;
  for (const d of parseAllDocuments(text)) {
    if (d.errors.length > 0) throw d.errors[0];
    const doc = d.toJS();
    const spec = podSpecOf(doc);
    if (!spec) continue;
    pods++;
    for (const p of restrictedViolations(spec)) problems.push(`${doc.kind}/${doc.metadata?.name}: ${p}`);
  }
  return { pods, problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2);
  const text =
    files.length > 0 ? files.map((f) => readFileSync(f, 'utf8')).join('\n---\n') : readFileSync(0, 'utf8');
  const { pods, problems } = checkManifests(text);
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`Pod Security "restricted": ${problems.length} violation(s) in ${pods} pod template(s)`);
    process.exit(1);
  }
  console.log(`Pod Security "restricted": ${pods} pod template(s) pass`);
}
