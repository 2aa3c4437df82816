import { Type } from "@sinclair/typebox";

/**
 * An optional list of non-empty strings (names, globs, hosts) described by `description`: the
 * shape most lists of the config have, written once.
 */
export const stringList = (description: string) => Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description }));
