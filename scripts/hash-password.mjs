// Prints the bcrypt hash of a password for basic_auth_users of a web config, with bcryptjs (a dependency of the
// exporter): no htpasswd needed. The password comes from stdin, so it is not in the shell's history or `ps`.
// Usage: node scripts/hash-password.mjs < password-file   (or type it, then Enter and Ctrl-D)
//        BCRYPT_COST=12 node scripts/hash-password.mjs    (cost 4-31; default 10, as htpasswd -B)

import bcrypt from "bcryptjs";

const cost = Number(process.env.BCRYPT_COST ?? "10");
if (!Number.isInteger(cost) || cost < 4 || cost > 31) {
  process.stderr.write("hash-password: BCRYPT_COST must be a whole number from 4 to 31\n");
  process.exit(2);
}
let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
// One line break at the end is the Enter that finished the line, not part of the password.
const password = input.replace(/\r?\n$/, "");
if (password === "") {
  process.stderr.write("hash-password: no password on stdin\n");
  process.exit(2);
}
process.stdout.write(`${bcrypt.hashSync(password, cost)}\n`);
