/** `trailproof badge public | private`: whether anyone may fetch an environment's badge without a token. */
import { commandGroup, databaseEnvironment, databaseFlags, databaseOptions, defineCommand, UsageError, withStore } from './common.ts';

function badgeCommand(setting: 'public' | 'private') {
  return defineCommand({
    name: `badge ${setting}`,
    synopsis: '--org ORG --environment ENV [--db FILE | --database URL]',
    summary:
      setting === 'public'
        ? [
            'Lets anyone fetch the badge of environment ENV (its compliance state, GET /badges/ORG/environments/ENV.svg)',
            'without a token, for a README. Nothing else of the environment becomes readable. Undo with badge private.',
          ].join('\n')
        : 'Takes the badge of environment ENV back: without a token it answers 404 again, as for an unknown name.',
    options: { org: { type: 'string' }, environment: { type: 'string' }, ...databaseOptions },
    flags: [['--org ORG', 'the organisation (required)'], ['--environment ENV', 'the environment (required)'], ...databaseFlags],
    environment: databaseEnvironment,
    async run({ values }) {
      if (!values.org || !values.environment) throw new UsageError(`badge ${setting} needs --org ORG and --environment ENV`);
      const { org, environment } = values as { org: string; environment: string };
      await withStore(
        values,
        async (store) => {
          const organization = await store.findOrganization(org);
          const found = organization && (await store.setEnvironmentBadgePublic(Number(organization.id), environment, setting === 'public', Date.now() / 1000));
          if (!found) throw new Error(`no environment '${environment}' in organisation '${org}'`);
        },
        { mustExist: true },
      );
      const path = `/badges/${encodeURIComponent(org)}/environments/${encodeURIComponent(environment)}.svg`;
      process.stdout.write(
        setting === 'public'
          ? `The badge of ${environment} is public: ${path}\n`
          : `The badge of ${environment} is private: ${path} answers 404 without a token\n`,
      );
    },
  });
}

export const badge = commandGroup('badge', "README badges: let anyone fetch an environment's badge without a token, or stop that.", [
  badgeCommand('public'),
  badgeCommand('private'),
]);
