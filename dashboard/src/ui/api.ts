import { useMutation, useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import { call, type Input, type OperationName, type Output } from '../api/client.ts';

/** A read through TanStack Query, keyed by operation and input (so mutations can invalidate by operation). */
export function useApi<O extends OperationName>(op: O, input: Input<O>, opts: Partial<UseQueryOptions<Output<O>>> = {}) {
  return useQuery<Output<O>>({ queryKey: [op, input], queryFn: () => call(op, input), ...opts });
}

/** A mutation; on success the listed reads are refetched. */
export function useApiMutation<O extends OperationName>(op: O, invalidate: OperationName[] = []) {
  const qc = useQueryClient();
  return useMutation<Output<O>, Error, Input<O>>({
    mutationFn: (input) => call(op, input),
    onSuccess: () => Promise.all(invalidate.map((k) => qc.invalidateQueries({ queryKey: [k] }))),
  });
}

/** A file as the API takes it: base64 without a data: prefix. */
export function fileToBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}
