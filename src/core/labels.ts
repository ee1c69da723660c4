/**
 * The labels, annotations and names by which Tekton and Pipelines-as-Code mark what they leave
 * behind (docs/spec.md, "Leftovers"), one constant each: markers.ts and runlinks.ts read them,
 * the adapters select on them.
 */

/** The labels and annotations markers and links read, one constant each. */
export const COMPONENT_LABEL = 'app.kubernetes.io/component';
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const PIPELINE_RUN_LABEL = 'tekton.dev/pipelineRun';
export const GIT_AUTH_SECRET_ANNOTATION = 'pipelinesascode.tekton.dev/git-auth-secret';

/** Tekton's affinity assistant: `app.kubernetes.io/component` on its StatefulSet and claims, and its name prefix. */
export const AFFINITY_ASSISTANT_COMPONENT = 'affinity-assistant';
export const AFFINITY_ASSISTANT_PREFIX = 'affinity-assistant-';

/** `app.kubernetes.io/managed-by` on Pipelines-as-Code Secrets: the current value, and `pipelines-as-code` before v0.17. */
export const PAC_MANAGED_BY: readonly string[] = ['pipelinesascode.tekton.dev', 'pipelines-as-code'];
/** Pipelines-as-Code names each run's Secret `pac-gitauth-` and random letters (0.7.0 on; earlier names were per repository). */
export const PAC_SECRET_PREFIX = 'pac-gitauth-';

/** Tekton's ResolutionRequests carry the resolver that serves them as this label; its value begins their name. */
export const RESOLVER_TYPE_LABEL = 'resolution.tekton.dev/type';

/** The group of Tekton's runs: an ownerReference elsewhere (`example.com/v1`) is no run, whatever its kind. */
export const TEKTON_GROUP = 'tekton.dev';
