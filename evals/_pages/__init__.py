"""The shell every scorekit page shares, and notebook views of results."""
