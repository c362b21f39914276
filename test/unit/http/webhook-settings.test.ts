import { describe, expect, it } from 'vitest';
import { parseWebhookSettings } from '../../../src/producers/http/webhook-settings.ts';

const SECRET = 'a-webhook-secret-of-some-length';
const route = { repository: 'team/shop', app: 'shop', image: 'r.example.com/{app}:{sha}' };
const parse = (routes: unknown, secret: string | undefined = SECRET) =>
  parseWebhookSettings({
    LONGSHORE_WEBHOOKS: JSON.stringify(routes),
    ...(secret ? { LONGSHORE_WEBHOOK_SECRET: secret } : {}),
  });

describe('webhook settings', () => {
  it('maps repositories and branches to apps, the branch main unless named', async () => {
    expect(await parse([route, { ...route, branch: 'release', app: 'shop-next' }])).toEqual({
      secret: SECRET,
      routes: [
        { ...route, branch: 'main' },
        { ...route, branch: 'release', app: 'shop-next' },
      ],
    });
    expect(await parseWebhookSettings({})).toEqual({ routes: [] });
  });

  it.each([
    [[{ ...route, repository: 'shop' }], /LONGSHORE_WEBHOOKS 0\.repository: must be OWNER\/NAME/],
    [[{ ...route, app: 'Shop!' }], /LONGSHORE_WEBHOOKS 0\.app:/],
    [[{ ...route, image: 'r.example.com/shop:latest' }], /0\.image: must contain \{sha\}/],
    [[{ ...route, image: 'R!/{sha}' }], /0\.image: gives "R!\/0{40}", not an image reference/],
    [[{ ...route, extra: 1 }], /LONGSHORE_WEBHOOKS 0:/],
    [[route, { ...route, app: 'other' }], /maps team\/shop@main twice/],
  ])('refuses %j', async (routes, message) => {
    await expect(parse(routes)).rejects.toThrow(message);
  });

  it('refuses routes without a secret, a short secret, and text that is not JSON', async () => {
    await expect(parse([route], '')).rejects.toThrow(/LONGSHORE_WEBHOOK_SECRET is not/);
    await expect(parse([route], 'short')).rejects.toThrow(/at least 16 characters/);
    await expect(
      parseWebhookSettings({ LONGSHORE_WEBHOOKS: '[{', LONGSHORE_WEBHOOK_SECRET: SECRET }),
    ).rejects.toThrow(/LONGSHORE_WEBHOOKS is not JSON/);
  });
});
