let hiddenURL = "http://hidden.example.com"
