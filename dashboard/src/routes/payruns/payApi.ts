import type { Output } from '../../api/client.ts';

/** Issue 36's views as the generated client has them. */
export type ApprovalView = NonNullable<Output<'paymentGet'>['approval']>;
export type RunView = Output<'payRunGet'>;
export type RunStatus = RunView['status'];
