/** Token estimates per wire view and their calibration from the provider's reported usage. */
export * from './calibrator.js';
export * from './estimate.js';
