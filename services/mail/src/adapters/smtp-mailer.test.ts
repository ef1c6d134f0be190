import { classifySmtpError, smtpOutcome } from './smtp-mailer';

describe('classifySmtpError', () => {
  it('treats connection errors and 4xx replies as transient', () => {
    expect(classifySmtpError({ code: 'ECONNECTION', message: 'refused' }).permanent).toBe(false);
    expect(classifySmtpError({ code: 'ETIMEDOUT' }).permanent).toBe(false);
    expect(classifySmtpError({ code: 'EENVELOPE', responseCode: 451, command: 'RCPT TO' }).permanent).toBe(
      false,
    );
  });

  it('treats 5xx replies as permanent, and a refused RCPT as a recipient rejection', () => {
    const rcpt = classifySmtpError({ code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' });
    expect(rcpt.permanent).toBe(true);
    expect(rcpt.recipientRejected).toBe(true);
    const data = classifySmtpError({ code: 'EMESSAGE', responseCode: 554, command: 'DATA' });
    expect(data.permanent).toBe(true);
    expect(data.recipientRejected).toBe(false);
    expect(classifySmtpError({ code: 'EAUTH' }).permanent).toBe(true);
  });
});

describe('smtpOutcome (dependency metrics)', () => {
  it('counts a message the server refuses for good as rejected', () => {
    expect(smtpOutcome({ code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' })).toBe('rejected');
    expect(smtpOutcome({ code: 'EMESSAGE', responseCode: 554, command: 'DATA' })).toBe('rejected');
    expect(smtpOutcome({ code: 'EENVELOPE' })).toBe('rejected');
  });

  it('counts "try later", a refused login and no answer as failed', () => {
    expect(smtpOutcome({ code: 'EENVELOPE', responseCode: 451, command: 'RCPT TO' })).toBe('failed');
    expect(smtpOutcome({ code: 'EAUTH', responseCode: 535 })).toBe('failed');
    expect(smtpOutcome({ code: 'ECONNECTION' })).toBe('failed');
    expect(smtpOutcome(new Error('socket hang up'))).toBe('failed');
  });
});
