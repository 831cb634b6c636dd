import { expect } from 'chai';
import { sanitizeCommentHtml } from '../../src/comments/comment-html.js';

const LINK = 'rel="noopener noreferrer nofollow" target="_blank"';

describe('comments: sanitizeCommentHtml (allow-list)', () => {
  const cases: [string, string, string | null][] = [
    [
      'script is removed with its content',
      '<p>Hi <script>alert(1)</script><b>there</b></p>',
      '<p>Hi <b>there</b></p>',
    ],
    ['img with onerror disappears entirely', '<p>x<img src=x onerror=alert(1)></p>', '<p>x</p>'],
    [
      'event handlers and style/class attributes are dropped',
      '<p onclick="x()" style="color:red" class="c">t</p>',
      '<p>t</p>',
    ],
    [
      'javascript: href is dropped (link kept, forced attributes)',
      '<a href="javascript:alert(1)">x</a>',
      `<a ${LINK}>x</a>`,
    ],
    [
      'entity-encoded, mixed-case javascript: is dropped',
      '<a href="JaVaScRiPt&colon;alert(1)">x</a>',
      `<a ${LINK}>x</a>`,
    ],
    ['javascript: with a tab inside is dropped', '<a href="java\tscript:alert(1)">x</a>', `<a ${LINK}>x</a>`],
    ['data: URLs are dropped', '<a href="data:text/html,<b>x</b>">x</a>', `<a ${LINK}>x</a>`],
    ['protocol-relative URLs are dropped', '<a href="//evil.example">x</a>', `<a ${LINK}>x</a>`],
    [
      'https link keeps href and title; own target/rel/onclick replaced or dropped',
      '<a href="https://ex.com/a?b=1" title="T" target="_self" rel="opener" onclick="x()">ok</a>',
      `<a href="https://ex.com/a?b=1" title="T" target="_blank" rel="noopener noreferrer nofollow">ok</a>`,
    ],
    [
      'mailto links are kept',
      '<a href="mailto:help@ex.com">mail</a>',
      `<a href="mailto:help@ex.com" ${LINK}>mail</a>`,
    ],
    ['relative links are kept', '<a href="/tickets/5">t</a>', `<a href="/tickets/5" ${LINK}>t</a>`],
    [
      'iframe, style, object, form go',
      '<iframe src="https://e"></iframe><style>p{}</style><object data="x"></object><form action="//e"><input></form>ok',
      'ok',
    ],
    [
      'svg/math are unwrapped with no markup left',
      '<svg><script>alert(1)</script></svg><math><mi>x</mi></math>',
      'x',
    ],
    [
      'noscript mXSS payload leaves nothing executable',
      '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
      '<p></p>',
    ],
    ['text is escaped', 'a < b & "c"', 'a &lt; b &amp; "c"'],
    ['comments are removed', '<!-- secret --><p>x</p>', '<p>x</p>'],
    [
      'safe formatting survives unchanged',
      '<h1>T</h1><h6>t</h6><p><strong>s</strong><em>e</em><b>b</b><i>i</i><u>u</u><s>s</s><br></p><blockquote>q</blockquote><pre><code>c</code></pre><ul><li>1</li></ul><ol><li>2</li></ol><hr />',
      '<h1>T</h1><h6>t</h6><p><strong>s</strong><em>e</em><b>b</b><i>i</i><u>u</u><s>s</s><br /></p><blockquote>q</blockquote><pre><code>c</code></pre><ul><li>1</li></ul><ol><li>2</li></ol><hr />',
    ],
    [
      'tables survive with colspan/rowspan only',
      '<table><caption>c</caption><thead><tr><th colspan="2" onclick="x">h</th></tr></thead><tbody><tr><td rowspan="1" style="x">d</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>',
      '<table><caption>c</caption><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td rowspan="1">d</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>',
    ],
    [
      "an image of the ticket's attachment stays, with alt/title/width/height only",
      '<p>x<img src="/attachments/12/download" alt="shot" title="t" width="40" height="30" onerror="y" style="z" class="c"></p>',
      '<p>x<img src="/attachments/12/download" alt="shot" title="t" width="40" height="30" /></p>',
    ],
    [
      'any other image source is dropped with the image (remote, data:, cid:, near-misses)',
      '<img src="https://track.example/p.gif"><img src="data:image/png;base64,AAAA"><img src="cid:a@b"><img src="//attachments/1/download"><img src="/attachments/1/download?x=1"><img src="/attachments/0/download"><img src="/attachments/1/download/../../x"><img>ok',
      'ok',
    ],
    ['nothing visible left -> null', '<script>alert(1)</script>  ', null],
    ['empty input -> null', '', null],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      expect(sanitizeCommentHtml(input)).to.equal(expected);
    });
  }

  it('sanitizing twice changes nothing (what is stored is stable)', () => {
    const once = sanitizeCommentHtml(
      '<p>a <a href="https://x.io" onclick="y">l</a> &amp; <b>b</b><img src="/attachments/3/download" alt="i"></p>',
    )!;
    expect(sanitizeCommentHtml(once)).to.equal(once);
  });
});
