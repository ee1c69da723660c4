/**
 * What a run links to leftovers (docs/spec.md, "Leftovers"): the claims and Secrets its
 * workspaces bind by name, the Pipelines-as-Code Secret its annotation names, and its own
 * `retain` keys (an owner run's `retain` keeps its leftovers). Pure; never throws: a shape it
 * cannot read is a ReadProblem, and the run then keeps every leftover of its namespace.
 *
 * Read only when a leftover collector is on: a pass over PipelineResources alone reads none of
 * it, and its run records stay as small as before.
 */
import { listAt, nameAt, objectAt, objectPath, sortedNames } from './fields.js';
import { GIT_AUTH_SECRET_ANNOTATION } from './labels.js';
import { describeValue, isRecord } from './refs.js';
import { isRetentionKey } from './retention.js';
import { EMPTY_LIST, type ReadProblem, type RunRecord, type WorkspaceNames } from './types.js';

/** One frozen record for every run whose workspaces name no claim and no Secret. */
export const NO_WORKSPACES: WorkspaceNames = Object.freeze({ claims: EMPTY_LIST, secrets: EMPTY_LIST });

export type LeftoverLinks = Required<Pick<RunRecord, 'workspaces' | 'leftoverProblems'>> & Pick<RunRecord, 'gitAuthSecret' | 'retain'>;

/**
 * The leftover fields of a run record. `identityProblems`: what could not be read of the run's
 * namespace, name or uid; a run not known by those could be any leftover's owner, so they count
 * among its leftover problems.
 */
export function readLeftoverLinks(run: unknown, identityProblems: readonly ReadProblem[]): LeftoverLinks {
  const problems: ReadProblem[] = [...identityProblems];
  const workspaces = readWorkspaces(run, problems);
  const metadata = isRecord(run) && isRecord(run['metadata']) ? run['metadata'] : {};
  const gitAuthSecret = readGitAuthSecret(metadata, problems);
  const retain = readRetain(metadata, problems);
  return {
    workspaces,
    ...(gitAuthSecret !== undefined && { gitAuthSecret }),
    ...(retain !== undefined && { retain }),
    leftoverProblems: problems.length === 0 ? EMPTY_LIST : problems,
  };
}

/**
 * `spec.workspaces[]`: `persistentVolumeClaim.claimName` names a claim; `secret.secretName`,
 * and the Secrets of a `projected` binding (`sources[].secret.name`), name Secrets. Other
 * bindings (emptyDir, configMap, volumeClaimTemplate, csi) name neither. Null when a binding
 * has an unexpected shape: what the run uses is then unknown.
 */
function readWorkspaces(run: unknown, problems: ReadProblem[]): WorkspaceNames | null {
  const found: ReadProblem[] = [];
  const spec = objectPath(run, ['spec'], '', found);
  const claims: string[] = [];
  const secrets: string[] = [];
  listAt(spec?.['workspaces'], 'spec.workspaces', found).forEach((binding: unknown, index) => {
    const field = `spec.workspaces[${index}]`;
    const workspace = objectAt(binding, field, found);
    if (workspace === undefined) return;
    const claim = objectAt(workspace['persistentVolumeClaim'], `${field}.persistentVolumeClaim`, found);
    const claimName = claim && nameAt(claim, 'claimName', `${field}.persistentVolumeClaim`, found);
    if (claimName !== undefined) claims.push(claimName);
    const secret = objectAt(workspace['secret'], `${field}.secret`, found);
    const secretName = secret && nameAt(secret, 'secretName', `${field}.secret`, found);
    if (secretName !== undefined) secrets.push(secretName);
    secrets.push(...projectedSecrets(workspace['projected'], `${field}.projected`, found));
  });
  problems.push(...found);
  if (found.length > 0) return null;
  if (claims.length === 0 && secrets.length === 0) return NO_WORKSPACES;
  return { claims: sortedNames(claims, EMPTY_LIST), secrets: sortedNames(secrets, EMPTY_LIST) };
}

/** The Secrets of a projected volume (a workspace binding, or a Pod's volume): `sources[].secret.name`. */
export function projectedSecrets(value: unknown, field: string, problems: ReadProblem[]): string[] {
  const projected = objectAt(value, field, problems);
  if (projected === undefined) return [];
  return listAt(projected['sources'], `${field}.sources`, problems).flatMap((source: unknown, index) => {
    const sourceField = `${field}.sources[${index}]`;
    const secret = objectAt(objectAt(source, sourceField, problems)?.['secret'], `${sourceField}.secret`, problems);
    const name = secret && nameAt(secret, 'name', `${sourceField}.secret`, problems);
    return name === undefined ? [] : [name];
  });
}

/** The annotation `pipelinesascode.tekton.dev/git-auth-secret`, when set. */
function readGitAuthSecret(metadata: Record<string, unknown>, problems: ReadProblem[]): string | undefined {
  const annotations = objectAt(metadata['annotations'], 'metadata.annotations', problems);
  if (annotations === undefined) return undefined;
  return nameAt(annotations, GIT_AUTH_SECRET_ANNOTATION, `metadata.annotations`, problems);
}

/** The run's retention labels and annotations, when it has any: whatever --label-prefix is, only those keys are kept. */
function readRetain(metadata: Record<string, unknown>, problems: ReadProblem[]): RunRecord['retain'] {
  const labels = retentionEntries(metadata['labels'], 'metadata.labels', problems);
  const annotations = retentionEntries(metadata['annotations'], 'metadata.annotations', problems);
  if (labels === undefined && annotations === undefined) return undefined;
  return { labels: labels ?? {}, annotations: annotations ?? {} };
}

function retentionEntries(value: unknown, field: string, problems: ReadProblem[]): Record<string, string> | undefined {
  // The annotations' shape is checked once, by readGitAuthSecret.
  if (!isRecord(value)) {
    if (field === 'metadata.labels' && value !== undefined && value !== null) problems.push({ field, problem: `expected an object, found ${describeValue(value)}` });
    return undefined;
  }
  let kept: Record<string, string> | undefined;
  for (const [key, text] of Object.entries(value)) {
    if (!isRetentionKey(key)) continue;
    if (typeof text !== 'string') {
      problems.push({ field: `${field}[${JSON.stringify(key)}]`, problem: `expected a string, found ${describeValue(text)}` });
      continue;
    }
    (kept ??= {})[key] = text;
  }
  return kept;
}
