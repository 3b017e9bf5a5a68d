"""`python -m course_utils` is the `course` command."""
import sys

from course_utils.cli import main

sys.exit(main())
