import { useParams, useSearchParams, Link } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Skeleton, Stack, Text } from '@mantine/core';
import { useI18n } from '../../i18n/i18n.tsx';
import { useAuth } from '../../auth.tsx';
import { useApi, useApiMutation } from '../../ui/api.ts';
import { ErrorAlert } from '../../ui/common.tsx';
import { Bare } from '../../ui/Bare.tsx';
import { ApiError } from '../../api/client.ts';
import { fillNodes } from '../../ui/fillNodes.tsx';
import { Ltr } from '../../ui/Ltr.tsx';

/** The invite email's link: the business and role, then acceptInvite; each dead end has its own page. */
export default function Invite() {
  const { m, fill, date } = useI18n();
  const [params] = useSearchParams();
  // The invite email links /invite/<token> (core/links.ts); /invite?token= is kept for older emails.
  const token = useParams().token ?? params.get('token') ?? '';
  const { state, setBusinessId, signOut } = useAuth();
  const qc = useQueryClient();
  const preview = useApi('invitePreview', { token }, { enabled: token !== '', retry: false });
  const accept = useApiMutation('acceptInvite', []);
  const email = state.status === 'signedIn' ? (state.user.email ?? '') : '';
  if (!token)
    return (
      <Bare title={m.invite.invalidTitle}>
        <Text>{m.invite.missing}</Text>
      </Bare>
    );
  if (preview.isPending)
    return (
      <Bare title={m.invite.title}>
        <Skeleton height={60} aria-label={m.loading} />
      </Bare>
    );
  if (preview.isError) {
    if (preview.error instanceof ApiError && preview.error.code === 'not-found')
      return (
        <Bare title={m.invite.invalidTitle}>
          <Text>{m.invite.invalidBody}</Text>
        </Bare>
      );
    return (
      <Bare title={m.invite.title}>
        <ErrorAlert error={preview.error} onRetry={() => void preview.refetch()} />
      </Bare>
    );
  }
  const p = preview.data;
  const toDashboard = (
    <Button component={Link} to="/">
      {m.invite.toDashboard}
    </Button>
  );
  if (accept.isSuccess)
    return (
      <Bare title={fill(m.invite.joined, { business: p.businessName })}>
        {toDashboard}
      </Bare>
    );
  if (p.state === 'expired')
    return (
      <Bare title={m.invite.expiredTitle}>
        <Text>{fill(m.invite.expiredBody, { date: date(p.expiresAt) })}</Text>
      </Bare>
    );
  if (p.state === 'revoked')
    return (
      <Bare title={m.invite.revokedTitle}>
        <Text>{m.invite.revokedBody}</Text>
      </Bare>
    );
  if (p.state === 'accepted')
    return (
      <Bare title={m.invite.usedTitle}>
        <Text>{m.invite.usedBody}</Text>
        {toDashboard}
      </Bare>
    );
  if (!p.forYou)
    return (
      <Bare title={m.invite.wrongEmailTitle}>
        <Text className="wrap-anywhere">{fillNodes(m.invite.wrongEmailBody, { invited: <Ltr>{p.email}</Ltr>, email: <Ltr>{email}</Ltr> })}</Text>
        <Button onClick={() => void signOut()}>{m.signOut}</Button>
      </Bare>
    );
  return (
    <Bare title={m.invite.title}>
      <Stack>
        <Text>{fill(m.invite.body, { business: p.businessName, role: m.roles[p.role] })}</Text>
        {accept.isError && <ErrorAlert error={accept.error} />}
        <Button
          loading={accept.isPending}
          onClick={() =>
            accept.mutate(
              { token },
              {
                onSuccess: (r) => {
                  setBusinessId(r.businessId);
                  void qc.invalidateQueries({ queryKey: ['myBusinesses'] });
                },
              },
            )
          }
        >
          {m.invite.accept}
        </Button>
      </Stack>
    </Bare>
  );
}
