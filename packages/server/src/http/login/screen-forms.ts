import { Type, type TProperties } from '@sinclair/typebox';

export const StateQuery = Type.Object({ state: Type.String({ minLength: 1, maxLength: 64, description: 'The login transaction.' }) });

/**
 * A screen's form as our pages and the platform's SDK post it: the screen's own fields, the transaction's `state`
 * (in the body, the URL or both), an optional `action` (the SDK leaves it out for the main action), and what else
 * the SDK sends (`acul-sdk`, browser capabilities, `captcha`), each one short text.
 */
export const ScreenForm = <T extends TProperties>(fields: T) =>
  Type.Object(
    {
      state: Type.Optional(Type.String({ maxLength: 64 })),
      action: Type.Optional(Type.String({ maxLength: 64 })),
      ...fields,
    },
    { additionalProperties: Type.String({ maxLength: 2048 }) },
  );
