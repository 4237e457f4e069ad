"""Update the site's translation catalogues: `python tools/catalogues.py` (or `--check`).

Extracts every message of the pages (templates and page functions) into
ratingdb/site/locale/messages.pot, merges it into each language's messages.po (new messages empty,
messages no longer written kept as `#~` for reuse), and lists what each language still lacks. Translate
those in the .po files (msgstr) and run it again; `--check` only lists, and exits 1 if anything lacks,
as tests/site/test_catalogues.py does.
"""

from __future__ import annotations

import sys

from ratingdb.site import catalogues


def main(argv: list[str]) -> int:
    lacking = catalogues.missing() if "--check" in argv else catalogues.update()
    for language, messages in lacking.items():
        print(f"{language}: {len(messages)} messages to translate or fix")
        for message in messages:
            print(f"  {message}")
    if not lacking:
        print(f"Every message is in messages.pot and translated in every .po ({catalogues.LOCALE}).")
    return 1 if lacking else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
