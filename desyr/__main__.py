from desyr.cli.main import entry

entry()
