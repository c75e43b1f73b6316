/** The organisation overview: its flows, environments and latest deployments. */
import { definePage } from '../page.ts';

export const overviewPage = definePage({
  path: '/:org',
  async render({ org }) {
    return {
      title: org.name,
      content: (
        <>
          <h1>{org.name}</h1>
        </>
      ),
    };
  },
});
