import { expect } from 'chai';
import { cidOf, replyHtml, visibleHtml } from '../../src/index.js';

const noImages = { imageUrl: () => null };

describe('threading: the visible HTML of a reply (html.ts)', () => {
  describe('visibleHtml strips the quoted history', () => {
    const cases: [string, string, string][] = [
      [
        'Gmail: div.gmail_quote with its attribution and the <br> before it',
        '<div dir="ltr">Works now, thanks!</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Jun 15, 2026 at 9:00 AM Support &lt;support@tix.localhost&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0">Try turning it off</blockquote></div>',
        '<div dir="ltr">Works now, thanks!</div>',
      ],
      [
        'Gmail: the newer gmail_quote_container, and the signature',
        '<div>Fixed.</div><div class="gmail_signature" data-smartmail="gmail_signature">Alice<br>ACME</div><div class="gmail_quote gmail_quote_container"><blockquote class="gmail_quote">old</blockquote></div>',
        '<div>Fixed.</div>',
      ],
      [
        'Outlook web: #appendonsend, the rule and #divRplyFwdMsg, and all after it',
        '<div>Yes please.</div><div id="appendonsend"></div><hr style="display:inline-block"><div id="divRplyFwdMsg" dir="ltr"><b>From:</b> Support<br><b>Sent:</b> Monday</div><div>Old text</div>',
        '<div>Yes please.</div>',
      ],
      [
        'Outlook desktop: the border-top header block inside WordSection1, what follows, the blank line left',
        '<div class="WordSection1"><p class="MsoNormal">Thanks, done.</p><p class="MsoNormal">&nbsp;</p><div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal"><b>From:</b> Support &lt;s@x&gt;<br><b>Sent:</b> Monday<br><b>Subject:</b> Help</p></div><p class="MsoNormal">Old question</p></div>',
        '<div class="WordSection1"><p class="MsoNormal">Thanks, done.</p></div>',
      ],
      [
        'Apple Mail: blockquote type=cite and the attribution div before it is kept only as text',
        '<div>Sounds good.</div><div><br><blockquote type="cite"><div>On 15 Jun 2026, at 09:00, Support wrote:</div><div>Try again</div></blockquote></div>',
        '<div>Sounds good.</div>',
      ],
      [
        'Thunderbird: moz-cite-prefix and the cited blockquote, and the moz-signature',
        '<p>Here you go.</p><div class="moz-signature">-- <br>Bob</div><div class="moz-cite-prefix">On 15.06.26 09:00, Support wrote:<br></div><blockquote type="cite" cite="mid:x@y">Please send logs</blockquote>',
        '<p>Here you go.</p>',
      ],
      [
        'a Gmail forward keeps the forwarded message (it is the content)',
        '<div>See below</div><div class="gmail_quote"><div class="gmail_attr">---------- Forwarded message ---------<br>From: Carol</div><div>The printer is on fire</div></div>',
        '<div>See below</div><div class="gmail_quote"><div class="gmail_attr">---------- Forwarded message ---------<br>From: Carol</div><div>The printer is on fire</div></div>',
      ],
      [
        'an Apple forward keeps its cited blockquote',
        '<div>FYI</div><div>Begin forwarded message:</div><blockquote type="cite"><div>Original problem</div></blockquote>',
        '<div>FYI</div><div>Begin forwarded message:</div><blockquote type="cite"><div>Original problem</div></blockquote>',
      ],
      [
        'a plain blockquote the customer wrote is kept',
        '<p>You wrote:</p><blockquote>the thing</blockquote><p>and I disagree</p>',
        '<p>You wrote:</p><blockquote>the thing</blockquote><p>and I disagree</p>',
      ],
      ['HTML with no quote is unchanged', '<p>Hello <b>there</b></p>', '<p>Hello <b>there</b></p>'],
    ];
    for (const [name, input, expected] of cases) {
      it(name, () => {
        expect(visibleHtml(input)).to.equal(expected);
      });
    }
  });

  describe('replyHtml: cid images, then the comment sanitiser', () => {
    it('points each cid: image at its stored attachment, drops unknown and remote images', () => {
      const stored = new Map([
        ['shot1@x', '/attachments/41/download'],
        ['logo2@x', '/attachments/42/download'],
      ]);
      const html =
        '<p>Screenshot:</p><img src="cid:shot1@x" alt="shot" onerror="x()"><img src="CID:%3Clogo2%40x%3E"><img src="cid:missing@x"><img src="https://t.example/pixel.gif"><img src="data:image/png;base64,AAAA">';
      expect(replyHtml(html, { imageUrl: (cid) => stored.get(cid) ?? null })).to.equal(
        '<p>Screenshot:</p><img src="/attachments/41/download" alt="shot" /><img src="/attachments/42/download" />',
      );
    });

    it('strips the quote before the images, so a quoted image is never asked for', () => {
      const asked: string[] = [];
      const html =
        '<div>New one attached<img src="cid:new@x"></div><div class="gmail_quote"><img src="cid:old@x"></div>';
      const out = replyHtml(html, {
        imageUrl: (cid) => {
          asked.push(cid);
          return '/attachments/7/download';
        },
      });
      // div is not in the allow-list: unwrapped to its content.
      expect(out).to.equal('New one attached<img src="/attachments/7/download" />');
      expect(asked).to.deep.equal(['new@x']);
    });

    it('sanitises like comments (script, handlers, javascript: links)', () => {
      expect(
        replyHtml('<p onclick="x">Hi<script>alert(1)</script> <a href="javascript:x">l</a></p>', noImages),
      ).to.equal('<p>Hi <a rel="noopener noreferrer nofollow" target="_blank">l</a></p>');
    });

    it('is null when nothing visible is left, or there is no HTML', () => {
      expect(replyHtml('<div class="gmail_quote">only the quote</div>', noImages)).to.equal(null);
      expect(replyHtml('<img src="cid:gone@x">', noImages)).to.equal(null);
      expect(replyHtml(null, noImages)).to.equal(null);
      expect(replyHtml('   ', noImages)).to.equal(null);
    });

    it('keeps text an attacker hides in entities as text', () => {
      expect(replyHtml('<p>&lt;img src=x onerror=alert(1)&gt;</p>', noImages)).to.equal(
        '<p>&lt;img src=x onerror=alert(1)&gt;</p>',
      );
    });
  });

  it('cidOf reads cid: URLs (RFC 2392) and nothing else', () => {
    expect(cidOf('cid:Part1.ABC@example.com')).to.equal('part1.abc@example.com');
    expect(cidOf(' CID:%3Cimg%401%3E ')).to.equal('img@1');
    expect(cidOf('cid:%E0%A4%A')).to.equal('%e0%a4%a');
    expect(cidOf('https://x/cid:a')).to.equal(null);
    expect(cidOf('cid:')).to.equal(null);
  });
});
