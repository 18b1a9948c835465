import sys

from desyr.cli.main import main

sys.exit(main())
