// Test support: runnerd build metadata as our reference runner prints it (contract numbers made up).
export const GOOD_METADATA = {
  schema: 'paperclip-runner/runnerd-build-metadata/v1',
  binaryName: 'paperclip-runnerd',
  packageName: '@paperclipai/paperclip-runner',
  packageVersion: '0.4.2',
  binaryContractVersion: 2,
  nativeExecutionVersion: 1,
  harnessDriverVersion: 1,
  prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 1 },
  prpTransportModes: ['dial_ws_loopback', 'dial_wss', 'listen_ws'],
  buildProfile: 'release',
} as const;
