import { useEffect, useState } from 'react';
import { Alert, Button, Code, Divider, Group, Loader, Stack, Text, TextInput } from '@mantine/core';
import { GoogleAuthProvider, browserPopupRedirectResolver, isSignInWithEmailLink, sendSignInLinkToEmail, signInWithCredential, signInWithEmailLink, signInWithPopup, type Auth } from '@firebase/auth';
import { useI18n } from './i18n/i18n.tsx';
import { Bare } from './ui/Bare.tsx';

// The address the link was sent to, so the link opened in this browser finishes without asking again (not a secret).
const EMAIL_KEY = 'signInEmail';

const cleanUrl = () => {
  const url = new URL(window.location.href);
  for (const k of ['apiKey', 'oobCode', 'mode', 'lang', 'continueUrl', 'tenantId']) url.searchParams.delete(k);
  window.history.replaceState(null, '', url.pathname + url.search + url.hash);
};

/**
 * `npm start` serves `authStarting` in its init.json until its Auth emulator answers (about 20 s after a start):
 * true while that lasts, polled each second, so the page says "starting…" instead of a network error.
 */
function useEmulatorStarting(emulator: boolean): [boolean, () => void] {
  const [starting, setStarting] = useState(false);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!emulator) return;
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = async () => {
      const init = (await fetch('/__/firebase/init.json').then((r) => (r.ok ? r.json() : {}), () => ({}))) as { authStarting?: boolean };
      if (stop) return;
      setStarting(init.authStarting === true);
      if (init.authStarting === true) timer = setTimeout(() => void check(), 1000);
    };
    void check();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [emulator, round]);
  return [starting, () => setRound((r) => r + 1)];
}

/** Email link and Google, the same in production and against the Auth emulator. */
export default function SignIn({ auth, emulator }: { auth: Auth; emulator: boolean }) {
  const { m, fill } = useI18n();
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const linked = isSignInWithEmailLink(auth, window.location.href);
  const [needEmail, setNeedEmail] = useState(false);
  const [starting, checkStarting] = useEmulatorStarting(emulator);
  /** The Auth emulator still starting shows as a network failure: say so, and look again, instead of the raw code. */
  const failed = (err: unknown) => {
    const code = (err as { code?: string }).code;
    if (emulator && code === 'auth/network-request-failed') {
      checkStarting();
      return setError(m.signIn.starting);
    }
    setError(fill(m.signIn.failed, { message: code ?? String(err) }));
  };
  // Once it answers, the "starting…" shown for a failed attempt goes.
  useEffect(() => {
    if (!starting) setError((e) => (e === m.signIn.starting ? '' : e));
  }, [starting, m]);
  const emulatorConfig = auth.emulatorConfig;
  const oobCodes = emulatorConfig && `${emulatorConfig.protocol}://${emulatorConfig.host}${emulatorConfig.port === null ? '' : `:${emulatorConfig.port}`}/emulator/v1/projects/${auth.app.options.projectId}/oobCodes`;

  const finish = async (address: string) => {
    setBusy(true);
    try {
      await signInWithEmailLink(auth, address, window.location.href);
      localStorage.removeItem(EMAIL_KEY);
      cleanUrl();
    } catch (e) {
      setError(fill(m.signIn.failed, { message: (e as { code?: string }).code ?? String(e) }));
      cleanUrl();
      setNeedEmail(false);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    if (!linked) return;
    const saved = localStorage.getItem(EMAIL_KEY);
    if (saved) void finish(saved);
    else setNeedEmail(true);
    // Runs once for the link this page was opened with.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const send = async (e: React.FormEvent) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      // Back to the page the user wanted (a deep link from an email), signed in.
      await sendSignInLinkToEmail(auth, email.trim(), { url: window.location.href, handleCodeInApp: true });
      localStorage.setItem(EMAIL_KEY, email.trim());
      setSentTo(email.trim());
    } catch (err) {
      failed(err);
    } finally {
      setBusy(false);
    }
  };

  const [emulatedGoogle, setEmulatedGoogle] = useState(false);
  const google = async () => {
    setError('');
    // The popup needs Google's gapi script (apis.google.com), even against the Auth emulator, whose own
    // account page relays its answer through it; so `npm start` asks for the Google account here instead.
    if (emulator) return setEmulatedGoogle(true);
    try {
      await signInWithPopup(auth, new GoogleAuthProvider(), browserPopupRedirectResolver);
    } catch (err) {
      failed(err);
    }
  };
  /** The Auth emulator's google.com sign-in: an unsigned Google ID token it accepts (signInWithIdp, provider google.com). */
  const emulatorGoogle = async (address: string) => {
    setError('');
    setBusy(true);
    try {
      const claims = { sub: `google-${address.toLowerCase()}`, email: address, email_verified: true };
      await signInWithCredential(auth, GoogleAuthProvider.credential(JSON.stringify(claims)));
    } catch (err) {
      failed(err);
    } finally {
      setBusy(false);
    }
  };

  if (linked && !needEmail && !error)
    return (
      <Bare title={m.signIn.title}>
        <Text aria-live="polite">{m.signIn.finishing}</Text>
      </Bare>
    );

  return (
    <Bare title={m.signIn.title}>
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      {emulatedGoogle ? (
        <form
          aria-label={m.googleEmulator.title}
          onSubmit={(e) => {
            e.preventDefault();
            void emulatorGoogle(email.trim());
          }}
        >
          <Stack>
            <Text fw={600}>{m.googleEmulator.title}</Text>
            <Text size="sm">{m.googleEmulator.body}</Text>
            <TextInput type="email" label={m.googleEmulator.email} value={email} onChange={(e) => setEmail(e.currentTarget.value)} required autoComplete="email" dir="ltr" />
            <Button type="submit" loading={busy}>
              {m.googleEmulator.go}
            </Button>
            <Button variant="subtle" onClick={() => setEmulatedGoogle(false)}>
              {m.googleEmulator.back}
            </Button>
          </Stack>
        </form>
      ) : needEmail ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void finish(email.trim());
          }}
        >
          <Stack>
            <Text>{m.signIn.confirmEmail}</Text>
            <TextInput type="email" label={m.signIn.email} value={email} onChange={(e) => setEmail(e.currentTarget.value)} required autoComplete="email" dir="ltr" />
            <Button type="submit" loading={busy}>
              {m.signIn.finish}
            </Button>
          </Stack>
        </form>
      ) : sentTo ? (
        <Alert color="green" role="status">
          <Text>{fill(m.signIn.linkSent, { email: sentTo })}</Text>
          {emulator && (
            <>
              <Text size="sm" mt="xs">
                {m.signIn.emulatorHint}
              </Text>
              {oobCodes && (
                <Code block dir="ltr" mt="xs" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {oobCodes}
                </Code>
              )}
            </>
          )}
        </Alert>
      ) : (
        <>
          <Text>{m.signIn.intro}</Text>
          {starting && (
            <Group gap="xs" wrap="nowrap" aria-live="polite">
              <Loader size="xs" aria-hidden />
              <Text>{m.signIn.starting}</Text>
            </Group>
          )}
          <form onSubmit={send}>
            <Stack>
              <TextInput type="email" name="email" label={m.signIn.email} value={email} onChange={(e) => setEmail(e.currentTarget.value)} required autoComplete="email" dir="ltr" />
              <Button type="submit" loading={busy} disabled={starting}>
                {m.signIn.sendLink}
              </Button>
            </Stack>
          </form>
          <Divider />
          <Button variant="default" onClick={() => void google()} disabled={starting}>
            {m.signIn.google}
          </Button>
        </>
      )}
    </Bare>
  );
}
