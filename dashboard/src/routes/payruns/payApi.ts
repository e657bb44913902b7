import { useMutation, useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import { call, type OperationName, type Output } from '../../api/client.ts';

/**
 * Issue 36's payment-run operations as the brief names them, typed here until the generated client has them: once
 * the backend's operations land, these types become the generated ones and the hooks `useApi`/`useApiMutation`.
 */
/** A payment's approval as paymentGet shows it. */
export type ApprovalView = NonNullable<Output<'paymentGet'>['approval']>;
export type RunStatus = 'open' | 'paid' | 'partly_paid' | 'canceled';
export type FileKind = 'masav' | 'portal' | 'foreign' | 'bit';
export interface RunView {
  id: string;
  status: RunStatus;
  payDate: string;
  note: string;
  serial: number | null;
  createdBy: string;
  createdByEmail: string;
  createdAt: string;
  paidAt: string | null;
  canceledAt: string | null;
  totals: { currency: string; count: number; totalAgorot: number }[];
  items: { paymentId: string; supplierName: string; totalAgorot: number; currency: string; file: 'masav' | 'foreign' | 'bit'; payoutMasked: string; paymentStatus: string }[];
  files: { kind: FileKind; fileName: string; contentType: string; size: number; count: number; url: string; expiresAt: string }[];
  warnings: { reason: string; fields: string[] }[];
  proof: { fileName: string; url: string } | null;
}

interface PayOps {
  payRunCreate: [{ paymentIds: string[]; payDate?: string; note?: string }, RunView];
  payRunsList: [{ status?: RunStatus; limit?: number; pageToken?: string }, { items: (RunView & { paymentCount: number })[]; nextPageToken: string | null }];
  payRunGet: [{ runId: string }, RunView];
  payRunMarkPaid: [{ runId: string; paymentIds?: string[] }, RunView & { paidNow: string[]; alreadyPaid: string[]; refused: { paymentId: string; reason: string }[] }];
  payRunCancel: [{ runId: string }, RunView];
}
export type PayOp = keyof PayOps;

const loose = call as unknown as (op: string, body: unknown) => Promise<unknown>;

export function usePay<O extends PayOp>(op: O, input: PayOps[O][0], opts: Partial<UseQueryOptions<PayOps[O][1]>> = {}) {
  return useQuery<PayOps[O][1]>({ queryKey: [op, input], queryFn: () => loose(op, input) as Promise<PayOps[O][1]>, ...opts });
}

export function usePayMutation<O extends PayOp>(op: O, invalidate: (OperationName | PayOp)[] = []) {
  const qc = useQueryClient();
  return useMutation<PayOps[O][1], Error, PayOps[O][0]>({
    mutationFn: (input) => loose(op, input) as Promise<PayOps[O][1]>,
    onSuccess: () => Promise.all(invalidate.map((k) => qc.invalidateQueries({ queryKey: [k] }))),
  });
}
