"""Readers of tools' own records (JSON, text pointers, file headers). None executes anything:
no pickle, no torch.load; a record that cannot be read is treated as absent."""
