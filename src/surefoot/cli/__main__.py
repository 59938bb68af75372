import sys

from surefoot.cli import main

sys.exit(main())
