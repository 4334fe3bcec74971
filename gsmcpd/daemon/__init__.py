"""
The daemon: options (each setting declared once), the service tree, the
frozen heap and the twistd glue.  The top layer: it may import any other.
"""
