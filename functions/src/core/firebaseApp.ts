import type { AppOptions } from 'firebase-admin/app';

/**
 * Options for firebase-admin's initializeApp. On Cloud Functions FIREBASE_CONFIG says everything (the
 * default bucket too), so nothing is added. Elsewhere (emulators, the admin CLI) the project comes from
 * GCLOUD_PROJECT: without it firebase-admin asks the cloud metadata server, which is not there locally.
 */
export function firebaseAppOptions(env: NodeJS.ProcessEnv = process.env): AppOptions | undefined {
  if (env.FIREBASE_CONFIG) return undefined;
  const projectId = env.GCLOUD_PROJECT || env.GOOGLE_CLOUD_PROJECT;
  return projectId ? { projectId } : undefined;
}

/**
 * On an emulator there is no metadata server to find, yet google-auth-library looks for one before every
 * first call (a slow timeout and a MetadataLookupWarning locally). gcp-metadata's own switch turns that off.
 */
export function skipMetadataServerOnEmulators(env: NodeJS.ProcessEnv = process.env): void {
  const emulated = env.FIRESTORE_EMULATOR_HOST || env.FIREBASE_AUTH_EMULATOR_HOST || env.CLOUD_TASKS_EMULATOR_HOST || env.FUNCTIONS_EMULATOR === 'true';
  if (emulated && !env.METADATA_SERVER_DETECTION) env.METADATA_SERVER_DETECTION = 'none';
}
